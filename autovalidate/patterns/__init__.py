"""The pattern language: tokens, generalization hierarchy, enumeration, regex rendering."""
