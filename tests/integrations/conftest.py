"""The SARIF and rdjson schema validators, shared with the report tests."""

from report.conftest import validate_rdjson, validate_sarif

__all__ = ["validate_rdjson", "validate_sarif"]
