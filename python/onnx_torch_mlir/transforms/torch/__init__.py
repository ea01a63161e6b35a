"""Rewrites of the Torch dialect that several backends' routes share, and the helpers the rewrites build with."""
