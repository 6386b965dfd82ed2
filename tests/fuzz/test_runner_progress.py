"""tritonc.fuzz.runner.fuzz's progress protocol: a failure is announced when it is found,
before hypothesis shrinks it, and recorded once, shrunk, afterwards (no GPU)."""
from tritonc.fuzz import runner


def test_failure_announced_before_shrinking_and_recorded_once(monkeypatch):
    def always_mismatch(program, target="sim", torch=None):
        raise runner.MismatchFound("interpreter and simulator disagree at [0]")

    monkeypatch.setattr(runner, "check_program", always_mismatch)
    calls = []
    stats = runner.fuzz(3, seed=1234, target="sim", shrink=True,
                        progress=lambda n, failure=None, shrinking=False: calls.append((n, failure, shrinking)))
    # every program fails: each chunk announces its failure, shrinks it, then records it
    events = [("found" if shrinking else "recorded") for n, failure, shrinking in calls if failure is not None]
    assert events == ["found", "recorded"] * len(stats.failures) and len(stats.failures) >= 1
    assert all(f.kind == "mismatch" for _, f, _ in calls if f is not None)


def test_no_announcement_without_shrinking(monkeypatch):
    def always_mismatch(program, target="sim", torch=None):
        raise runner.MismatchFound("interpreter and simulator disagree at [0]")

    monkeypatch.setattr(runner, "check_program", always_mismatch)
    calls = []
    runner.fuzz(2, seed=99, target="sim", shrink=False,
                progress=lambda n, failure=None, shrinking=False: calls.append(shrinking))
    assert not any(calls)
