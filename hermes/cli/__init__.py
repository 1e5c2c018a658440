"""The ``hermes`` command. Each subcommand group lives in its own module and is added in ``main``."""
