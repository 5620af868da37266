"""The pattern index: schema and versions, mergeable states, the DuckDB reader."""
