"""The project's context as files: where the project and the person's configuration are
(``places``), the ``AGENTS.md`` instructions found from the project's root down to the working
folder (``agents_md``), and agents defined in Markdown or YAML files (``agent_files``)."""
