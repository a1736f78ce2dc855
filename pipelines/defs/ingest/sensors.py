"""Run the pipeline when new files land. Off until turned on in the UI."""

import hashlib

import dagster as dg

from pipelines.ingest.sources import SOURCES
from pipelines.settings import get_settings

from ..jobs import everything


def landing_fingerprint() -> str:
    """Name, size and mtime of every landed file of every source (cheap: no file is read)."""
    settings = get_settings()
    parts = []
    for source in SOURCES.values():
        folder = settings.landing_dir / source.folder
        if folder.is_dir():
            for path in sorted(folder.iterdir()):
                if path.is_file():
                    stat = path.stat()
                    parts.append(f"{source.folder}/{path.name}:{stat.st_size}:{stat.st_mtime_ns}")
    return "|".join(parts)


@dg.sensor(
    name="new_landing_files",
    job=everything,
    minimum_interval_seconds=300,
    default_status=dg.DefaultSensorStatus.STOPPED,
    description="Starts the pipeline when files in the landing folder change.",
)
def new_landing_files(context: dg.SensorEvaluationContext) -> dg.SensorResult | dg.SkipReason:
    fingerprint = landing_fingerprint()
    if not fingerprint:
        return dg.SkipReason("the landing folder is empty")
    if fingerprint == context.cursor:
        return dg.SkipReason("no new landing files")
    return dg.SensorResult(
        run_requests=[dg.RunRequest(run_key=hashlib.sha256(fingerprint.encode()).hexdigest()[:16])],
        cursor=fingerprint,
    )
