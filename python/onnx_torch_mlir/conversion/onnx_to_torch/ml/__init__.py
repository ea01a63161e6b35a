"""The `ai.onnx.ml` domain (classic machine learning: what skl2onnx and onnxmltools write), one
family in several modules, every pattern registered under the domain `ai.onnx.ml`:
- `scores.py`: the float rows, products with constant matrices, onnxruntime's post transforms
  and binary score columns, labels of the best scores, which the models share;
- `features.py`: ArrayFeatureExtractor, Binarizer, Scaler, Normalizer, Imputer, OneHotEncoder,
  LabelEncoder, FeatureVectorizer;
- `linear.py`: LinearClassifier, LinearRegressor;
- `svm.py`: SVMClassifier, SVMRegressor;
- `forest.py`: TreeEnsemble (version 5) and TreeEnsembleRegressor, and the forest walk;
- `tree_classifier.py`: TreeEnsembleClassifier.

The semantics are onnxruntime's CPU kernels (`core/providers/cpu/ml/`) where they and the spec
differ; each module says where. Strings (string class labels, LabelEncoder on strings) and maps
(ZipMap, CastMap, DictVectorizer; the importer refuses those) cannot be torch tensors.
The result types ONNX's inference leaves open come from `importer/ml_types.py`.
"""

from . import features, forest, linear, svm, tree_classifier  # noqa: F401
