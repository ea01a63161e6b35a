"""The StableHLO route's own steps (pipelines.ROUTES)."""
