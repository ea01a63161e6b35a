"""The TOSA route's own steps (pipelines.ROUTES)."""
