"""The computer tool: screenshots in, mouse and keyboard out, and the computers it drives."""
