"""What a timeline must look like once speedscope has imported it: checks
on what tests/viewer/speedscope_load.mjs hands back (viewer_env)."""
from collections import Counter


def slice_name(pe):
    """The name the timeline gives a decoded ProfileEvent."""
    if pe.get("name"):
        return pe["name"]
    if pe.get("delegate_debug_id_str"):
        return pe["delegate_debug_id_str"]
    return f"delegate {pe['delegate_debug_id_int']}"


def expected(dump):
    """From a decoded ETDump: the run names, and per operator name how many
    calls and their total time in microseconds, over all runs. A call that
    lasts no time is no part of a profile (speedscope keeps none)."""
    runs, calls, total = Counter(), Counter(), Counter()
    for r in dump.get("run_data", []):
        events = [e["profile_event"] for e in r.get("events", [])
                  if e.get("profile_event")]
        if not events:
            continue
        runs[r["name"]] += 1
        for pe in events:
            ns = int(pe["end_time"]) - int(pe["start_time"])
            if ns > 0:
                calls[slice_name(pe)] += 1
                total[slice_name(pe)] += ns / 1e3
    return runs, calls, total


def imported(loaded):
    """What speedscope made of a file: the names of each thread's frames
    (speedscope shows a thread at a time), and per frame name the depths it
    was opened at, its calls and total time."""
    profile = loaded["exported"]
    names = [f["name"] for f in profile["shared"]["frames"]]
    threads, depths, calls, total = [], {}, Counter(), Counter()
    for p in profile["profiles"]:
        threads.append([names[i] for i in
                        sorted({ev["frame"] for ev in p["events"]})])
        stack = []
        for ev in p["events"]:
            name = names[ev["frame"]]
            if ev["type"] == "O":
                depths.setdefault(name, set()).add(len(stack))
                stack.append((name, ev["at"]))
            else:
                opened, at = stack.pop()
                assert opened == name, (opened, name)
                calls[name] += 1
                total[name] += ev["at"] - at
        assert not stack, stack
    return threads, depths, calls, total


class SpeedscopeChecks:
    """For a unittest.TestCase: a timeline speedscope imported without a
    warning, every run at top level, every operator one frame holding all
    its calls over all runs."""

    def assert_opens_right(self, loaded, dump):
        what = loaded["file"]
        self.assertEqual(loaded["errors"], [], what)
        self.assertEqual(loaded["warnings"], [], what)
        self.assertIsNotNone(loaded["exported"], what)
        runs, calls, total = expected(dump)
        self.assertTrue(calls, f"{what}: nothing recorded")
        threads, depths, got_calls, got_total = imported(loaded)
        # one frame per operator: no frame split by per-run args
        for names in threads:
            self.assertEqual(len(names), len(set(names)), what)
        self.assertEqual(set().union(*threads), set(runs) | set(calls), what)
        for name in runs:
            self.assertEqual(depths[name], {0},
                             f"{what}: run {name} nested in another")
            self.assertEqual(got_calls[name], runs[name], what)
        for name in calls:
            if name in runs:
                continue
            self.assertNotIn(0, depths[name],
                             f"{what}: {name} outside any run")
            self.assertEqual(got_calls[name], calls[name],
                             f"{what}: calls of {name}")
            # speedscope rebases times in doubles: well under a ns per call
            self.assertAlmostEqual(got_total[name], total[name],
                                   delta=1e-4 * calls[name],
                                   msg=f"{what}: total of {name}")
