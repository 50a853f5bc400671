import Glibc

/// Runs `body(worker)` for workers `0..<count`, each on a thread of its own (worker 0 on the
/// caller's), and returns when all are done: how `matrix` opens ten thousand rows on every core.
/// Raw threads rather than Dispatch, whose Swift overlay every command would pay for at start-up.
/// `body` may only read what the workers share.
package enum ParallelWork {
    /// The processors online.
    package static var processors: Int { max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

    private final class Job {
        let body: (Int) -> Void
        let worker: Int
        init(_ body: @escaping (Int) -> Void, _ worker: Int) {
            self.body = body
            self.worker = worker
        }
    }

    package static func run(_ count: Int, _ body: @escaping (Int) -> Void) {
        var threads: [pthread_t] = []
        for worker in 1..<max(1, count) {
            let job = Unmanaged.passRetained(Job(body, worker)).toOpaque()
            var thread = pthread_t()
            let started = pthread_create(
                &thread, nil,
                { raw in
                    let job = Unmanaged<Job>.fromOpaque(raw!).takeRetainedValue()
                    job.body(job.worker)
                    return nil
                }, job)
            if started == 0 {
                threads.append(thread)
            } else {
                // No thread to be had: this one does the work.
                Unmanaged<Job>.fromOpaque(job).release()
                body(worker)
            }
        }
        body(0)
        for thread in threads { pthread_join(thread, nil) }
    }
}
