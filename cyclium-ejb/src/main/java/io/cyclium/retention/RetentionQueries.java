package io.cyclium.retention;

import io.cyclium.node.DbClock;
import io.cyclium.store.NativeSql;
import jakarta.persistence.EntityManager;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Reads of retention runs for the console, the API and the runner (every node's runs: they are rows). */
public final class RetentionQueries {

    /** The most runs one read returns. */
    public static final int MAX_RUNS = 200;

    /** One execution of the retention job. Times are UTC on the database clock. */
    public record Run(String id, String runKey, String trigger, String requestedBy, String node, String status,
            Long batchExecutionId, String archiveAfter, String purgeAfter, int attempts, String error,
            LocalDateTime startedAt, LocalDateTime endedAt) {
    }

    /** One step of a run: rows read and written so far, and where it stands. */
    public record StepCounts(String step, String status, long read, long written, long chunks, String node,
            LocalDateTime startedAt, LocalDateTime endedAt) {
    }

    /** A run with its steps in job order. */
    public record Execution(Run run, List<StepCounts> steps) {
        public Execution {
            steps = List.copyOf(steps);
        }
    }

    private static final String RUN_COLUMNS = "id, run_key, trigger_kind, requested_by, node_identity, status, batch_execution_id,"
            + " archive_after, purge_after, attempts, error_detail, started_at, ended_at";

    public Optional<Run> byKey(EntityManager em, String runKey) {
        return runs(em, new NativeSql().sql("SELECT " + RUN_COLUMNS + " FROM cyclium_retention_runs WHERE run_key = ").value(runKey), 1)
                .stream().findFirst();
    }

    public Optional<Execution> execution(EntityManager em, String runId) {
        List<Run> runs = runs(em, new NativeSql().sql("SELECT " + RUN_COLUMNS + " FROM cyclium_retention_runs WHERE id = ").value(runId), 1);
        if (runs.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Execution(runs.get(0), steps(em, List.of(runs.get(0).id())).getOrDefault(runs.get(0).id(), List.of())));
    }

    /** The newest runs first (at most {@link #MAX_RUNS}), each with its steps: two statements. */
    public List<Execution> recent(EntityManager em, int limit) {
        int n = Math.max(1, Math.min(limit, MAX_RUNS));
        List<Run> runs = runs(em, new NativeSql().sql("SELECT " + RUN_COLUMNS + " FROM cyclium_retention_runs ORDER BY started_at DESC, id"), n);
        if (runs.isEmpty()) {
            return List.of();
        }
        Map<String, List<StepCounts>> steps = steps(em, runs.stream().map(Run::id).toList());
        List<Execution> out = new ArrayList<>();
        for (Run r : runs) {
            out.add(new Execution(r, steps.getOrDefault(r.id(), List.of())));
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static List<Run> runs(EntityManager em, NativeSql sql, int limit) {
        List<Object[]> rows = sql.query(em).setMaxResults(limit).getResultList();
        List<Run> out = new ArrayList<>();
        for (Object[] r : rows) {
            out.add(new Run((String) r[0], (String) r[1], (String) r[2], (String) r[3], (String) r[4], (String) r[5],
                    r[6] == null ? null : ((Number) r[6]).longValue(), (String) r[7], (String) r[8], ((Number) r[9]).intValue(),
                    r[10] == null ? null : r[10].toString(), time(r[11]), time(r[12])));
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, List<StepCounts>> steps(EntityManager em, List<String> runIds) {
        List<Object[]> rows = new NativeSql().sql("SELECT run_id, step_name, status, read_count, written_count, chunks, node_identity,"
                + " started_at, ended_at FROM cyclium_retention_steps WHERE ").in("run_id", runIds).query(em).getResultList();
        Map<String, List<StepCounts>> byRun = new LinkedHashMap<>();
        for (Object[] r : rows) {
            byRun.computeIfAbsent((String) r[0], k -> new ArrayList<>()).add(new StepCounts((String) r[1], (String) r[2],
                    ((Number) r[3]).longValue(), ((Number) r[4]).longValue(), ((Number) r[5]).longValue(), (String) r[6],
                    time(r[7]), time(r[8])));
        }
        byRun.values().forEach(list -> list.sort((a, b) -> Integer.compare(order(a.step()), order(b.step()))));
        return byRun;
    }

    private static int order(String step) {
        return RetentionStep.parse(step).map(Enum::ordinal).orElse(Integer.MAX_VALUE);
    }

    private static LocalDateTime time(Object value) {
        return value == null ? null : DbClock.toLocalDateTime(value);
    }
}
