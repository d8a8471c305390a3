"""What a finished run leaves in a saved notebook: static HTML and Markdown, the run as
data for the lab extension's renderer, the saved forms of reports and progress."""
