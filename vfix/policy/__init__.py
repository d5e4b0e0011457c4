"""Audit policy: expected values as goss-style matchers, a shipped default and its schema."""

from vfix.policy.loader import CheckSettings, Policy, default_policy, load_policy
from vfix.policy.matchers import Matcher, matcher_from, parse_quantity

__all__ = [
    "CheckSettings",
    "Matcher",
    "Policy",
    "default_policy",
    "load_policy",
    "matcher_from",
    "parse_quantity",
]
