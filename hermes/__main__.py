"""``python -m hermes`` runs the CLI."""

from hermes.cli.main import main

main()
