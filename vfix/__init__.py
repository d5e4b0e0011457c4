"""vfix: fleet remediation for multi-GPU and multi-node vLLM deployments."""

__version__ = "0.1.0"
