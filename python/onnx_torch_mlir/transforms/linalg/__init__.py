"""The Linalg-on-tensors route's own steps (pipelines.ROUTES)."""
