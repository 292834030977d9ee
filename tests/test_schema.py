from pathlib import Path

from safeactbench.runs.schema import schema_documents

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "docs" / "schema"


def test_checked_in_schemas_are_current() -> None:
    for name, text in schema_documents().items():
        path = SCHEMA_DIR / name
        assert path.exists(), f"missing {path}: run `safeactbench schema`"
        assert path.read_text(encoding="utf-8") == text, f"{path} is stale: run `safeactbench schema`"
