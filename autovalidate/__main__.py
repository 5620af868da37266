"""``python -m autovalidate`` runs the CLI."""

from autovalidate.cli import main

main()
