package io.cyclium.bench;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The benchmark's yardstick: db-scheduler 16.12.0 on the same PostgreSQL, in the same round, in the
 * benchmark's own JVM. A trivial one-time task (its handler counts and returns), 20 executor
 * threads, lock-and-fetch polling ({@code SELECT … FOR UPDATE SKIP LOCKED} picking a batch), immediate
 * execution on, a 100 ms polling interval: the quickest configuration its documentation offers, so
 * a ratio against it is not flattered. Executions are scheduled now, one per call, from as many
 * threads as the Cyclium scenario fires events from, while the scheduler runs, and the time runs
 * until the last one has executed, as the Cyclium scenario's runs until the last episode is done.
 *
 * <p>It works in a database of its own ({@link #DATABASE}) as the nodes' role, so the benchmark's
 * statement counts (pg_stat_statements per database) are its own.
 */
final class DbSchedulerReference implements AutoCloseable {

    static final String DATABASE = "dbscheduler";
    static final int EXECUTOR_THREADS = 20;

    private final HikariDataSource dataSource;
    private final AtomicInteger executed = new AtomicInteger();
    private final OneTimeTask<Void> task = Tasks.oneTime("bench-tick").execute((instance, context) -> executed.incrementAndGet());

    private DbSchedulerReference(HikariDataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** Creates its database and db-scheduler's table (the DDL of its documentation for PostgreSQL). */
    static DbSchedulerReference on(OwnPostgres pg) {
        pg.createDatabase(DATABASE);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:postgresql://127.0.0.1:" + pg.port() + "/" + DATABASE);
        config.setUsername("postgres");
        // the executor threads, the scheduling threads, and db-scheduler's own (due, housekeeping)
        config.setMaximumPoolSize(EXECUTOR_THREADS + 24);
        config.setPoolName("db-scheduler");
        HikariDataSource ds = new HikariDataSource(config);
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE scheduled_tasks (task_name TEXT NOT NULL, task_instance TEXT NOT NULL, task_data BYTEA,"
                    + " execution_time TIMESTAMP WITH TIME ZONE NOT NULL, picked BOOLEAN NOT NULL, picked_by TEXT,"
                    + " last_success TIMESTAMP WITH TIME ZONE, last_failure TIMESTAMP WITH TIME ZONE, consecutive_failures INT,"
                    + " last_heartbeat TIMESTAMP WITH TIME ZONE, version BIGINT NOT NULL, priority SMALLINT,"
                    + " PRIMARY KEY (task_name, task_instance))");
            s.execute("CREATE INDEX execution_time_idx ON scheduled_tasks (execution_time)");
            s.execute("CREATE INDEX last_heartbeat_idx ON scheduled_tasks (last_heartbeat)");
            s.execute("CREATE INDEX priority_execution_time_idx ON scheduled_tasks (priority DESC, execution_time ASC)");
        } catch (SQLException e) {
            ds.close();
            throw new IllegalStateException("db-scheduler's table could not be created", e);
        }
        return new DbSchedulerReference(ds);
    }

    /** A scheduler started for one phase: {@link Running#schedule} then {@link Running#awaitExecuted}. */
    Running start() {
        Scheduler scheduler = Scheduler.create(dataSource, task)
                .threads(EXECUTOR_THREADS)
                .pollUsingLockAndFetch(0.5, 1.0)
                .pollingInterval(Duration.ofMillis(100))
                .enableImmediateExecution()
                .shutdownMaxWait(Duration.ofSeconds(5))
                .build();
        scheduler.start();
        return new Running(scheduler, executed.get());
    }

    final class Running implements AutoCloseable {
        private final Scheduler scheduler;
        private final int executedBefore;

        private Running(Scheduler scheduler, int executedBefore) {
            this.scheduler = scheduler;
            this.executedBefore = executedBefore;
        }

        /** {@code count} executions due now, scheduled one per call from {@code threads} threads. */
        void schedule(int count, int threads, String prefix) throws Exception {
            BenchClients.run(threads, count, i -> scheduler.schedule(task.instance(prefix + "-" + i), Instant.now()));
        }

        void awaitExecuted(int count) throws InterruptedException {
            long deadline = System.nanoTime() + Duration.ofMinutes(15).toNanos();
            while (executed.get() - executedBefore < count) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("db-scheduler executed " + (executed.get() - executedBefore) + " of " + count
                            + " within 15 minutes");
                }
                Thread.sleep(5);
            }
        }

        @Override
        public void close() {
            scheduler.stop();
        }
    }

    @Override
    public void close() {
        dataSource.close();
    }
}
