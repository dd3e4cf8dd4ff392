"""Regression tests for bugs the reliability runs (issue 8) found in firmware modules; each
runs on CPython and on MicroPython. docs/reliability.md lists the bugs."""

from mptest import raises

from referee import protocol


def test_a_choice_of_numbers_is_named_in_the_error_not_an_internal_error():
    # Found by protocol fuzzing: {"cmd": "options", "sps": 3} answered "internal error:
    # TypeError" because the list of allowed values (10, 80) was joined as strings.
    with raises(protocol.ProtocolError) as e:
        protocol.arg({"sps": 3}, "sps", protocol.INT, 80, choices=(10, 80))
    assert str(e.value) == "'sps' must be one of 10, 80"
    with raises(protocol.ProtocolError) as e:
        protocol.arg({"side": "hard"}, "side", protocol.STR, choices=("easy", "expert"))
    assert "easy, expert" in str(e.value)
