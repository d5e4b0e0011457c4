"""The facts contract: what each node really has, as typed, frozen data."""

from vfix.facts.model import HostFacts

__all__ = ["HostFacts"]
