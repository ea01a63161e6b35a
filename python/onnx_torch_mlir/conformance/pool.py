"""Run cases in isolated worker processes, a few at a time.

A worker serves cases one after another (so MLIR is loaded once per worker,
not per case). When a case crashes its worker (a segfault or abort inside MLIR)
or runs past the timeout, that worker is killed and replaced, and only that
case is recorded as "crash" or "timeout".
"""

import multiprocessing
import signal
import time
from multiprocessing.connection import wait

from .worker import CaseResult, run_case, serve

_CONTEXT = multiprocessing.get_context("spawn")


class _Worker:
    def __init__(self, case_runner):
        self.case_runner = case_runner
        self.connection, child_end = _CONTEXT.Pipe()
        self.process = _CONTEXT.Process(target=serve, args=(child_end, case_runner), daemon=True)
        self.process.start()
        child_end.close()
        self.task = None
        self.deadline = None

    def start(self, case, configuration, backend, timeout: float):
        self.task = case
        self.started = time.perf_counter()
        self.deadline = self.started + timeout
        self.connection.send((case, configuration, backend))

    def stop(self):
        try:
            self.connection.send(None)
        except (BrokenPipeError, OSError):
            pass
        self.process.join(timeout=5)
        self.kill()

    def kill(self):
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.connection.close()


def _death_message(exit_code) -> str:
    if exit_code is not None and exit_code < 0:
        try:
            return f"worker killed by {signal.Signals(-exit_code).name}"
        except ValueError:
            return f"worker killed by signal {-exit_code}"
    return f"worker exited with status {exit_code}"


def run_cases(
    cases, configuration, backend, *, jobs: int = 2, timeout: float = 120.0, on_result=None, case_runner=run_case
):
    """Run `cases`; returns {case_id: CaseResult}. `on_result(result)` is called as each ends.

    `case_runner(case, configuration, backend) -> CaseResult` runs in the workers
    (a module-level function, so it can be sent to a spawned process).
    """
    pending = list(reversed(cases))
    results = {}
    workers = [_Worker(case_runner) for _ in range(max(1, min(jobs, len(cases))))]
    idle = list(workers)
    busy = {}

    def finish(worker, result):
        results[result.case_id] = result
        if on_result:
            on_result(result)
        worker.task = None
        idle.append(worker)

    try:
        while pending or busy:
            while idle and pending:
                worker = idle.pop()
                worker.start(pending.pop(), configuration, backend, timeout)
                busy[worker.connection] = worker
            deadline = min(worker.deadline for worker in busy.values())
            ready = wait(list(busy), timeout=max(0.0, deadline - time.perf_counter()))
            for connection in ready:
                worker = busy.pop(connection)
                try:
                    result = connection.recv()
                except (EOFError, OSError):
                    worker.process.join(timeout=5)
                    elapsed = time.perf_counter() - worker.started
                    result = CaseResult(worker.task.case_id, "crash", "", _death_message(worker.process.exitcode), elapsed)
                    worker.kill()
                    worker = _Worker(case_runner)
                finish(worker, result)
            now = time.perf_counter()
            for connection, worker in list(busy.items()):
                if worker.deadline <= now:
                    del busy[connection]
                    worker.kill()
                    result = CaseResult(worker.task.case_id, "timeout", "", f"no result within {timeout:.0f} s", now - worker.started)
                    finish(_Worker(case_runner), result)
    finally:
        for worker in list(busy.values()) + idle:
            worker.stop()
    return results
