import os
import sys

# let tests import the small oracle modules beside them
sys.path.insert(0, os.path.dirname(__file__))

import pytest  # noqa: E402


@pytest.fixture(scope="module")
def dask_client():
    """One LocalCluster of 2 single-threaded worker processes per test module (starting one costs seconds);
    skipped when dask.distributed is not installed."""
    import logging

    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=logging.ERROR
    )
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()
