"""A person's seat at a bot table: the same referee, rules, clock and fault handling as bots.

The referee launches the person's seat like any bot: a small process (:mod:`relay`)
whose stdin and stdout are the bot protocol and which passes every line to and from a
socket of the program the person uses (``arena play`` in a terminal; a web page can
bridge to the same socket).  On that side :mod:`seat` speaks the protocol for the person
and asks a *front* for each decision; the front only shows and reads.  What the person is
shown is built here once, for every front:

* :mod:`table`: who sits where, and the names the person sees (You, West, North ...);
* :mod:`narrate`: what happened, in plain sentences ("West drew from the stock and
  discarded 7h");
* :mod:`view`: what the person sees at a decision or at the end, as a structure;
* :mod:`render`: that structure as plain text;
* :mod:`parse`: what the person typed, made into one legal action or a refusal that says why;
* :mod:`terminal`: the terminal front; :mod:`webfront`, the web page's;
* :mod:`match`: a match with a person's seat, played through the referee with any front;
* :mod:`record`: such a match stored under the competition ``play``, the person as ``@NAME``.

Nothing is imported here: the relay process imports this package and must start fast.
"""
