"""How a run is seen while it runs: the widget and its typed state, the adapter from
stream events to that state, the terminal's text view, batch and evaluation views."""
