"""Running one agent cell: ``%%agent`` (and ``--over``, ``--eval``), its
prompt, options, conversation and recording."""
