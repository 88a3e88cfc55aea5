"""The small modules the hostile-input cases rely on, one behaviour each."""

from __future__ import annotations

import os
import tempfile
import threading
import time
from pathlib import Path, PurePosixPath

import pytest

from cfglint import crash_log, files, globs, session
from cfglint.fix.limits import too_costly
from cfglint.reprs import decimal_digits, display_repr, exact_repr
from cfglint.types import NoticeKind


def test_a_fifo_is_refused_without_being_opened(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.py")
    start = time.monotonic()
    with pytest.raises(files.NotRegularFileError, match="not a regular file"):
        files.read_bytes_capped(tmp_path / "pipe.py")
    assert time.monotonic() - start < 2


def test_a_device_is_refused_and_the_cap_holds_for_files_that_report_no_size(
    tmp_path: Path,
) -> None:
    (tmp_path / "zero.py").symlink_to("/dev/zero")
    with pytest.raises(files.NotRegularFileError):
        files.read_bytes_capped(tmp_path / "zero.py")
    # /proc files are regular and say they are empty: what they hold is capped all the same.
    with pytest.raises(files.FileTooLargeError, match="more than 16 bytes"):
        files.read_bytes_capped(Path("/proc/self/maps"), limit=16)


def test_too_large_and_unreadable_files_say_why(tmp_path: Path) -> None:
    big = tmp_path / "big.py"
    big.write_bytes(b"x" * (files.MAX_FILE_BYTES + 1))
    with pytest.raises(files.FileTooLargeError, match=r"131,073 bytes; .* up to 128 KB"):
        files.read_text_capped(big)
    with pytest.raises(files.UnreadableFileError, match="file not found"):
        files.read_text_capped(tmp_path / "missing.py")
    (tmp_path / "loop.py").symlink_to(tmp_path / "loop.py")
    with pytest.raises(files.UnreadableFileError, match="symlink loop"):
        files.read_text_capped(tmp_path / "loop.py")
    crlf = tmp_path / "crlf.py"
    crlf.write_bytes(b"a = 1\r\nb = 2\r")
    assert files.read_text_capped(crlf) == "a = 1\r\nb = 2\r"
    assert files.read_text_capped(crlf, translate_newlines=True) == "a = 1\nb = 2\n"


def test_a_file_read_again_in_one_command_is_read_afresh_once_it_changed(tmp_path: Path) -> None:
    config = tmp_path / "a.py"
    config.write_bytes(b"a = 1\n")
    told: list[files.Read] = []
    with session.command(), files.observed(told.append):
        first = files.read_bytes_capped(config)
        assert files.read_bytes_capped(config) is first  # kept, not read again
        assert told[0] == told[1]  # a cache records the same read either way
        config.write_bytes(b"a = 22\n")  # in place
        assert files.read_bytes_capped(config) == b"a = 22\n"
        replacement = tmp_path / "b.py"
        replacement.write_bytes(b"a = 33\n")  # the same size, replacing the file
        os.replace(replacement, config)
        assert files.read_bytes_capped(config) == b"a = 33\n"
        assert told[-1].digest == files.digest(b"a = 33\n")
        with pytest.raises(files.FileTooLargeError):
            files.read_bytes_capped(config, limit=4)  # the limit holds for a kept file
        config.unlink()
        os.mkfifo(config)
        with pytest.raises(files.NotRegularFileError):
            files.read_bytes_capped(config)
    config.unlink()
    config.write_bytes(b"a = 1\n")
    with session.command():
        assert files.read_bytes_capped(config) is not first  # each command reads for itself


def test_an_internal_error_is_one_line_and_its_traceback_is_logged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(crash_log, "_LOG", crash_log._Log())
    try:
        raise ValueError("first line\nsecond line")
    except ValueError as error:
        notice = crash_log.internal_error(error, Path("configs/a.py"))
    assert (notice.kind, notice.path) == (NoticeKind.INTERNAL, Path("configs/a.py"))
    line = notice.message
    assert line.startswith("internal error in configs/a.py: ValueError: first line (traceback ")
    (log,) = tmp_path.glob("cfglint-internal-error-*.log")
    assert f"traceback written to {log};" in line
    text = log.read_text()
    assert "Traceback (most recent call last)" in text and "second line" in text


def test_ints_too_long_for_repr_are_named_or_written_exactly() -> None:
    big = 10**5000
    assert display_repr([big, {"k": -(10**4400)}]) == (
        "[<int of 5,001 digits>, {'k': -<int of 4,401 digits>}]"
    )
    assert exact_repr((big,)) == f"(int:{big:#x},)"
    assert exact_repr(big) != exact_repr(big + 1)
    assert display_repr([1, "a"]) == "[1, 'a']"
    assert [decimal_digits(10**n) for n in (0, 1, 4999, 5000)] == [1, 2, 5000, 5001]
    assert decimal_digits(10**5000 - 1) == 5000


def test_globs_that_made_a_regex_backtrack_match_at_once() -> None:
    result: list[bool] = []
    worker = threading.Thread(
        target=lambda: result.append(
            globs.matches("*a" * 14 + "*b", PurePosixPath("a" * 60))
            or globs.matches("**/" * 16 + "x", PurePosixPath("/".join(["a"] * 30)))
        ),
        daemon=True,
    )
    worker.start()
    worker.join(timeout=5)
    assert result == [False]
    assert globs.matches("configs/**/*.py", PurePosixPath("configs/a/b/c.py"))
    assert globs.matches("*a*b", PurePosixPath("x/aXb/y.py"))  # a folder covers what is below
    assert not globs.matches("configs/t20/**", PurePosixPath("configs/t20"))


def test_the_fixer_measures_nesting_as_libcst_builds_it() -> None:
    flat_for_python = "x = a" + " or a" * 1500 + "\n"
    assert too_costly(flat_for_python) is not None
    assert too_costly("x = " + " + ".join(["1"] * 900) + "\n") is None
    assert too_costly("x = ('a'" + "'a'" * 1500 + ")\n") is not None
