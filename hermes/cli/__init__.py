"""The ``hermes`` command. Each subcommand group lives in its own module, added in ``main``."""
