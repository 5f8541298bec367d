"""Perf counters recorded by etdump-bpf, as columns of ExecuTorch's Inspector.

etdump-bpf stores each profile event's counter deltas in its
delegate_debug_metadata (schema/COUNTERS.md). The Inspector keeps those bytes
per run without interpreting them; this turns them into numbers:

    from executorch.devtools import Inspector
    from etdump_counters import counter_columns

    inspector = Inspector(etdump_path="run.etdp")
    df = counter_columns(inspector)     # to_dataframe() + <counter>_p50/_avg

Only the standard library is needed to parse; pandas for counter_columns.
"""
import statistics

MAGIC = b"etdump-bpf-counters:1"


def parse_counters(metadata):
    """{name: int or None} from one event's metadata bytes, or None if the
    bytes are not etdump-bpf counters. None as a value: not trustworthy."""
    if isinstance(metadata, str):
        metadata = metadata.encode("latin-1")
    if not metadata or not metadata.startswith(MAGIC + b";"):
        return None
    values = {}
    for item in metadata[len(MAGIC) + 1:].decode("ascii").split(";"):
        name, _, value = item.partition("=")
        values[name] = None if value == "?" else int(value)
    return values


def _event_metadatas(event):
    """The per-run metadata bytes the Inspector kept for an event."""
    raw = getattr(event, "raw_delegate_debug_metadatas", None)
    if raw is None:
        raw = event.delegate_debug_metadatas
    return raw or []


def counter_rows(inspector):
    """One dict per event, in to_dataframe() order: for each counter,
    <name>_p50 and <name>_avg over the runs where it is a number."""
    rows = []
    for block in inspector.event_blocks:
        for event in block.events:
            per_counter = {}
            for metadata in _event_metadatas(event):
                parsed = parse_counters(metadata)
                for name, value in (parsed or {}).items():
                    per_counter.setdefault(name, [])
                    if value is not None:
                        per_counter[name].append(value)
            row = {}
            for name, values in per_counter.items():
                row[f"{name}_p50"] = statistics.median(values) if values \
                    else None
                row[f"{name}_avg"] = statistics.fmean(values) if values \
                    else None
            rows.append(row)
    return rows


def counter_columns(inspector, **to_dataframe_args):
    """inspector.to_dataframe() with the counter columns added."""
    import pandas

    df = inspector.to_dataframe(**to_dataframe_args)
    counters = pandas.DataFrame(counter_rows(inspector), index=df.index)
    return pandas.concat([df, counters], axis=1)
