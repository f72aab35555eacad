package io.cyclium.workflow;

import io.cyclium.episode.WaitStore;
import io.cyclium.node.DbClock;
import io.cyclium.store.DatabaseTime;
import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.JsonText;
import io.cyclium.store.NativeSql;
import jakarta.json.JsonObject;
import io.cyclium.runtime.PauseStore;
import jakarta.persistence.EntityManager;
import java.sql.Timestamp;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Reads of workflow definitions, instances, steps and journal, for the engine, the API and the console. */
public final class WorkflowQueries {

    static final String INSTANCE_COLUMNS = "id, workflow_id, status, subject_value, trigger_ref, target_step, source_stack,"
            + " source_env, version, started_at, finished_at, blocked_reason, error_detail, duration_ms, steps_run,"
            + " attempts_total, retries_total, critical_path, stats, trace_parent, definition_version";
    /** How many columns {@link #INSTANCE_COLUMNS} names: where a joined read's next columns begin. */
    private static final int INSTANCE_COLUMN_COUNT = INSTANCE_COLUMNS.split(",").length;
    static final String STEP_COLUMNS = "instance_id, step_id, state, attempt, max_attempts, critical, next_attempt_at,"
            + " approved_at, episode_id, queued_at, started_at, finished_at, run_ms, error_class, error_detail, version";

    /**
     * A stored definition: its current document, where it came from, whether it may start
     * instances, and the version of that document (what instances started now record).
     */
    public record StoredDefinition(String workflowId, String document, String origin, boolean enabled, LocalDateTime updatedAt,
            long documentVersion) {
    }

    /** One immutable version of a definition's document, when and from where it was stored. */
    public record DefinitionVersion(String workflowId, long version, String origin, LocalDateTime createdAt, String document) {
    }

    /**
     * What the engine needs of a step's episode. {@code queued}: it is stored {@code running} but
     * still waits in its node's queue (for a slot, a concurrency key or a rate token): not started.
     */
    public record EpisodeOutcome(String episodeId, String status, String errorClass, String summary, boolean queued) {

        /** Running and out of its node's queue: its step may be shown running. */
        public boolean started() {
            return "running".equals(status) && !queued;
        }
    }

    /** Filters for the instance list; null = any. Keyset paging on (started_at, id), newest first. */
    public record InstanceFilter(String workflowId, String status, String stack, String env, LocalDateTime beforeStarted,
            String beforeId) {
    }

    private final DatabaseVendor vendor;

    public WorkflowQueries(DatabaseVendor vendor) {
        this.vendor = vendor;
    }

    public Optional<InstanceRow> instance(EntityManager em, String id) {
        List<?> rows = new NativeSql().sql("SELECT " + INSTANCE_COLUMNS + " FROM cyclium_workflow_instances WHERE id = ")
                .value(id).query(em).getResultList();
        return rows.isEmpty() ? Optional.empty() : Optional.of(instance((Object[]) rows.get(0)));
    }

    /**
     * The instance, read and held for the rest of the caller's transaction in one statement (what
     * {@link WorkflowStore#holdInFlight} followed by {@link #instance} did in two). The lock is the
     * one an UPDATE of a non-key column takes: on PostgreSQL {@code FOR NO KEY UPDATE}, which a
     * transition's or step's foreign key check ({@code FOR KEY SHARE}) does not wait for — a plain
     * {@code FOR UPDATE} would make every such insert of another transaction wait, where the UPDATE
     * it replaces did not. MariaDB and H2 lock the row as their UPDATE did; SQL Server takes an
     * update lock, which other holders and the instance's UPDATEs wait for.
     */
    public Optional<InstanceRow> heldInstance(EntityManager em, String id) {
        String from = vendor == DatabaseVendor.SQLSERVER ? " FROM cyclium_workflow_instances WITH (UPDLOCK, ROWLOCK) WHERE id = "
                : " FROM cyclium_workflow_instances WHERE id = ";
        String lock = switch (vendor) {
            case POSTGRESQL -> " FOR NO KEY UPDATE";
            case SQLSERVER -> "";
            default -> " FOR UPDATE";
        };
        List<?> rows = new NativeSql().sql("SELECT " + INSTANCE_COLUMNS + from).value(id).sql(lock).query(em).getResultList();
        return rows.isEmpty() ? Optional.empty() : Optional.of(instance((Object[]) rows.get(0)));
    }

    /**
     * The instance's steps with the summary of each one's current episode (null: none, or none
     * yet), keyed by step id, the number of its last transition (0: none), and the database's clock as the
     * statement read them (null when there are none).
     */
    public record StepsAndSummaries(List<StepRow> steps, java.util.Map<String, String> summaries, long lastTransition,
            LocalDateTime readAt) {
    }

    /**
     * {@link #steps} and, in the same statement, the summaries of their episodes — what a launch
     * passes on to a step as its dependencies' outcomes (one read per advancement instead of one
     * per dependency) — and the instance's last transition number, from which a buffered journal
     * numbers its rows ({@link WorkflowStore#continueJournal}). Read after the instance's hold
     * (a statement of its own: on PostgreSQL, a statement that waited for the row's lock still
     * reads with the snapshot it started with, which lacks what the holder before it journaled).
     */
    public StepsAndSummaries stepsWithSummaries(EntityManager em, String instanceId) {
        List<?> rows = new NativeSql().sql("SELECT " + prefixed("s.", STEP_COLUMNS) + ", e.summary, (SELECT COALESCE(MAX(t.seq), 0)"
                + " FROM cyclium_workflow_transitions t WHERE t.instance_id = ").value(instanceId).sql("), " + vendor.utcNow()
                + " FROM cyclium_workflow_steps s"
                + " LEFT JOIN cyclium_episodes e ON e.id = s.episode_id WHERE s.instance_id = ").value(instanceId)
                .sql(" ORDER BY s.step_id").query(em).getResultList();
        return stepsFrom(rows, 0);
    }

    /**
     * The steps, summaries, last transition number and clock of rows whose columns from {@code from}
     * on are {@link #STEP_COLUMNS}, the summary, the number and the clock (rows without a step left out).
     */
    private static StepsAndSummaries stepsFrom(List<?> rows, int from) {
        List<StepRow> steps = new ArrayList<>(rows.size());
        java.util.Map<String, String> summaries = new java.util.HashMap<>();
        long last = 0;
        LocalDateTime readAt = null;
        for (Object r : rows) {
            Object[] c = from == 0 ? (Object[]) r : java.util.Arrays.copyOfRange((Object[]) r, from, ((Object[]) r).length);
            if (c[1] == null) {
                continue; // no step row (an instance always has steps; an outer join keeps the instance)
            }
            StepRow s = step(c);
            steps.add(s);
            String summary = text(c[16]);
            if (summary != null) {
                summaries.put(s.stepId(), summary);
            }
            last = ((Number) c[17]).longValue();
            readAt = time(c[18]);
        }
        return new StepsAndSummaries(steps, summaries, last, readAt);
    }

    /**
     * {@link #heldInstance} and {@link #stepsWithSummaries} in one statement, on PostgreSQL only
     * ({@link #readsHeldWithSteps}; elsewhere use the two). The catch: a statement that waited for the
     * instance's lock returns the instance row as its holder left it, but the joined steps as they
     * were when the statement began — without what that holder wrote. Every engine that holds the
     * instance and writes its steps on PostgreSQL also updates the instance row in the same
     * transaction ({@link WorkflowStore#holding}), which gives the row a new {@code xmin}; so
     * the row's {@code xmin} as locked, against its {@code xmin} in the statement's snapshot (a
     * subquery, which reads that snapshot), says whether the steps read are current
     * ({@link Held#current}). When they are not, read them again with {@link #stepsWithSummaries}:
     * the lock is held by then, and a new statement reads what its holder committed.
     */
    public Optional<Held> heldInstanceWithSteps(EntityManager em, String id) {
        if (!readsHeldWithSteps()) {
            throw new IllegalStateException("one statement for the held instance and its steps is PostgreSQL's only");
        }
        int instanceColumns = INSTANCE_COLUMN_COUNT;
        List<?> rows = new NativeSql().sql("SELECT " + prefixed("i.", INSTANCE_COLUMNS) + ", i.xmin::text,"
                + " (SELECT x.xmin::text FROM cyclium_workflow_instances x WHERE x.id = ").value(id).sql("), "
                + prefixed("s.", STEP_COLUMNS) + ", e.summary, (SELECT COALESCE(MAX(t.seq), 0)"
                + " FROM cyclium_workflow_transitions t WHERE t.instance_id = ").value(id).sql("), " + vendor.utcNow()
                + " FROM cyclium_workflow_instances i LEFT JOIN cyclium_workflow_steps s ON s.instance_id = i.id"
                + " LEFT JOIN cyclium_episodes e ON e.id = s.episode_id WHERE i.id = ").value(id)
                .sql(" ORDER BY s.step_id FOR NO KEY UPDATE OF i").query(em).getResultList();
        if (rows.isEmpty()) {
            return Optional.empty();
        }
        Object[] first = (Object[]) rows.get(0);
        InstanceRow instance = instance(java.util.Arrays.copyOfRange(first, 0, instanceColumns));
        boolean current = java.util.Objects.equals(first[instanceColumns], first[instanceColumns + 1]);
        return Optional.of(new Held(instance, stepsFrom(rows, instanceColumns + 2), current));
    }

    /** Whether {@link #heldInstanceWithSteps} is available (PostgreSQL). */
    public boolean readsHeldWithSteps() {
        return vendor == DatabaseVendor.POSTGRESQL;
    }

    /** What {@link #heldInstanceWithSteps} read: the instance (held), its steps, and whether they are current. */
    public record Held(InstanceRow instance, StepsAndSummaries steps, boolean current) {
    }

    /** The instances of {@code ids}, in that order (an id without one is left out). */
    public List<InstanceRow> instances(EntityManager em, List<String> ids) {
        java.util.Map<String, InstanceRow> byId = new java.util.HashMap<>();
        new NativeSql().sql("SELECT " + INSTANCE_COLUMNS + " FROM cyclium_workflow_instances WHERE ").in("id", ids).query(em)
                .getResultList().forEach(r -> {
                    InstanceRow row = instance((Object[]) r);
                    byId.put(row.id(), row);
                });
        return ids.stream().map(byId::get).filter(java.util.Objects::nonNull).toList();
    }

    /**
     * The instance's steps stored as queued whose episode has started: it is running and has left
     * its node's queue (its first write clears the queue mark). Such a step is shown running at
     * once — the row itself moves when the step ends, or at the next reconcile — without a write
     * on the episode's path.
     */
    public java.util.Set<String> queuedButStarted(EntityManager em, String instanceId) {
        List<?> rows = new NativeSql().sql("SELECT s.step_id FROM cyclium_workflow_steps s JOIN cyclium_episodes e ON e.id = s.episode_id"
                + " WHERE s.instance_id = ").value(instanceId).sql(" AND s.state = 'queued' AND e.status = 'running'"
                + " AND e.queued_at IS NULL").query(em).getResultList();
        java.util.Set<String> out = new java.util.HashSet<>();
        rows.forEach(r -> out.add((String) (r instanceof Object[] c ? c[0] : r)));
        return out;
    }

    public List<StepRow> steps(EntityManager em, String instanceId) {
        List<?> rows = new NativeSql().sql("SELECT " + STEP_COLUMNS + " FROM cyclium_workflow_steps WHERE instance_id = ")
                .value(instanceId).sql(" ORDER BY step_id").query(em).getResultList();
        return rows.stream().map(r -> step((Object[]) r)).toList();
    }

    public List<TransitionRow> transitions(EntityManager em, String instanceId) {
        List<?> rows = new NativeSql().sql("SELECT step_id, from_state, to_state, attempt, node_identity, cause, created_at"
                + " FROM cyclium_workflow_transitions WHERE instance_id = ").value(instanceId)
                .sql(" ORDER BY created_at, seq, id").query(em).getResultList();
        List<TransitionRow> out = new ArrayList<>();
        for (Object r : rows) {
            Object[] c = (Object[]) r;
            out.add(new TransitionRow((String) c[0], (String) c[1], (String) c[2], c[3] == null ? null : ((Number) c[3]).intValue(),
                    (String) c[4], text(c[5]), time(c[6])));
        }
        return out;
    }

    /** The failed steps whose retry is due by {@code now}, in running instances, oldest due first. */
    public List<StepRow> dueRetries(EntityManager em, DatabaseTime time, int limit) {
        List<?> rows = time.now(new NativeSql().sql("SELECT " + prefixed("s.", STEP_COLUMNS) + " FROM cyclium_workflow_steps s"
                + " JOIN cyclium_workflow_instances i ON i.id = s.instance_id"
                + " WHERE s.state = 'failed' AND s.next_attempt_at <= "))
                .sql(" AND i.status = 'running' ORDER BY s.next_attempt_at, s.instance_id, s.step_id ")
                .around(limit, vendor::firstRows).query(em).getResultList();
        return rows.stream().map(r -> step((Object[]) r)).toList();
    }

    /**
     * Ids of in-flight instances of a stack (any with {@code anyStack}) and env (null = unset),
     * in id order after {@code afterId} (from the first with null): what reconcile walks, a page
     * per sweep, scoped like the recovery sweep.
     */
    public List<String> inFlight(EntityManager em, String stack, boolean anyStack, String env, String afterId, int limit) {
        NativeSql sql = new NativeSql().sql("SELECT id FROM cyclium_workflow_instances WHERE status IN ('pending', 'running', 'blocked')");
        if (!anyStack) {
            sql.sql(" AND ").is("source_stack", stack);
        }
        sql.sql(" AND ").is("source_env", env);
        if (afterId != null) {
            sql.sql(" AND id > ").value(afterId);
        }
        List<?> rows = sql.sql(" ORDER BY id ").around(limit, vendor::firstRows).query(em).getResultList();
        return rows.stream().map(String.class::cast).toList();
    }

    /** The in-flight instance of a workflow for a subject, if any. */
    public Optional<String> inFlightFor(EntityManager em, String workflowId, String subject) {
        List<?> rows = new NativeSql().sql("SELECT id FROM cyclium_workflow_instances WHERE workflow_id = ").value(workflowId)
                .sql(" AND subject_value = ").value(subject).sql(" AND status IN ('pending', 'running', 'blocked')")
                .query(em).getResultList();
        return rows.stream().map(String.class::cast).findFirst();
    }

    /** Whether the workflow has any instance (in flight or finished) for this subject. */
    public boolean anyFor(EntityManager em, String workflowId, String subject) {
        return !new NativeSql().sql("SELECT id FROM cyclium_workflow_instances WHERE workflow_id = ").value(workflowId)
                .sql(" AND subject_value = ").value(subject).query(em).setMaxResults(1).getResultList().isEmpty();
    }

    public List<InstanceRow> instances(EntityManager em, InstanceFilter f, int limit) {
        NativeSql sql = new NativeSql().sql("SELECT " + INSTANCE_COLUMNS + " FROM cyclium_workflow_instances WHERE 1 = 1");
        if (f.workflowId() != null) {
            sql.sql(" AND workflow_id = ").value(f.workflowId());
        }
        if (f.status() != null) {
            sql.sql(" AND status = ").value(f.status());
        }
        if (f.stack() != null) {
            sql.sql(" AND source_stack = ").value(f.stack());
        }
        if (f.env() != null) {
            sql.sql(" AND source_env = ").value(f.env());
        }
        if (f.beforeStarted() != null) {
            Timestamp t = Timestamp.valueOf(f.beforeStarted());
            sql.sql(" AND (started_at < ").value(t).sql(" OR (started_at = ").value(t).sql(" AND id < ").value(f.beforeId())
                    .sql("))");
        }
        List<?> rows = sql.sql(" ORDER BY started_at DESC, id DESC ").around(limit, vendor::firstRows).query(em).getResultList();
        return rows.stream().map(r -> instance((Object[]) r)).toList();
    }

    public Optional<EpisodeOutcome> episode(EntityManager em, String episodeId) {
        List<?> rows = new NativeSql().sql("SELECT id, status, error_class, summary, queued_at FROM cyclium_episodes WHERE id = ")
                .value(episodeId).query(em).getResultList();
        return rows.stream().map(r -> outcome((Object[]) r)).findFirst();
    }

    /** The live episode holding a dedupe key (the one episode of a step attempt), if it exists. */
    public Optional<EpisodeOutcome> episodeByKey(EntityManager em, String dedupeKey) {
        List<?> rows = new NativeSql().sql("SELECT id, status, error_class, summary, queued_at FROM cyclium_episodes WHERE dedupe_key = ")
                .value(dedupeKey).sql(" AND archived_at IS NULL").query(em).getResultList();
        return rows.stream().map(r -> outcome((Object[]) r)).findFirst();
    }

    /** The instance's step episodes that have not ended (running or blocked), attached to a step or not. */
    public List<String> liveEpisodes(EntityManager em, String instanceId) {
        List<?> rows = new NativeSql().sql("SELECT id FROM cyclium_episodes WHERE workflow_instance_id = ").value(instanceId)
                .sql(" AND status IN ('running', 'blocked')").query(em).getResultList();
        return rows.stream().map(String.class::cast).toList();
    }

    /** Which definitions are stored: their count and the sum of their versions, which every write raises. */
    public record DefinitionsSeen(long rows, long versions) {
    }

    /**
     * What an idle node's workflow timer asks the database, in one statement: the definitions'
     * {@link DefinitionsSeen}, the earliest due time of a step retry (in a running instance) and of
     * a plain episode's retry, the database's now, so "due in" is measured on one clock, and the
     * pauses' fingerprint ({@link PauseStore#FINGERPRINT}: the node reads the pauses again when it moved),
     * and the earliest due time of a durable sleep or wait timeout anywhere in the cluster
     * ({@link WaitStore#EARLIEST_DUE}: the node's {@link io.cyclium.episode.WaitAlarm} hears it).
     */
    public record Pulse(DefinitionsSeen definitions, LocalDateTime stepRetryDue, LocalDateTime episodeRetryDue,
            LocalDateTime now, long pauses, LocalDateTime waitDue) {
    }

    public DefinitionsSeen definitionsSeen(EntityManager em) {
        Object[] r = (Object[]) em.createNativeQuery("SELECT COUNT(*), COALESCE(SUM(version), 0) FROM cyclium_workflow_definitions")
                .getSingleResult();
        return new DefinitionsSeen(((Number) r[0]).longValue(), ((Number) r[1]).longValue());
    }

    public Pulse pulse(EntityManager em) {
        Object[] r = (Object[]) em.createNativeQuery("SELECT (SELECT COUNT(*) FROM cyclium_workflow_definitions),"
                + " (SELECT COALESCE(SUM(version), 0) FROM cyclium_workflow_definitions),"
                + " (SELECT MIN(s.next_attempt_at) FROM cyclium_workflow_steps s JOIN cyclium_workflow_instances i"
                + " ON i.id = s.instance_id WHERE s.state = 'failed' AND s.next_attempt_at IS NOT NULL AND i.status = 'running'),"
                + " (SELECT MIN(retry_due_at) FROM cyclium_episodes WHERE retry_due_at IS NOT NULL AND status = 'failed'"
                + " AND archived_at IS NULL), " + vendor.utcNow() + ", " + PauseStore.FINGERPRINT + ", " + WaitStore.EARLIEST_DUE)
                .getSingleResult();
        return new Pulse(new DefinitionsSeen(((Number) r[0]).longValue(), ((Number) r[1]).longValue()), time(r[2]), time(r[3]),
                time(r[4]), ((Number) r[5]).longValue(), time(r[6]));
    }

    public Optional<StoredDefinition> definition(EntityManager em, String workflowId) {
        return definitions(em).stream().filter(d -> d.workflowId().equals(workflowId)).findFirst();
    }

    public List<StoredDefinition> definitions(EntityManager em) {
        List<?> rows = em.createNativeQuery("SELECT workflow_id, document, origin, enabled, updated_at, document_version"
                + " FROM cyclium_workflow_definitions WHERE document IS NOT NULL ORDER BY workflow_id").getResultList();
        List<StoredDefinition> out = new ArrayList<>();
        for (Object r : rows) {
            Object[] c = (Object[]) r;
            out.add(new StoredDefinition((String) c[0], text(c[1]), (String) c[2], bool(c[3]), time(c[4]),
                    ((Number) c[5]).longValue()));
        }
        return out;
    }

    /** One stored version of a definition (documents are never changed once stored). */
    public Optional<DefinitionVersion> definitionVersion(EntityManager em, String workflowId, long version) {
        List<?> rows = new NativeSql().sql("SELECT workflow_id, version, origin, created_at, document"
                + " FROM cyclium_workflow_definition_versions WHERE workflow_id = ").value(workflowId)
                .sql(" AND version = ").value(version).query(em).getResultList();
        return rows.stream().map(r -> definitionVersion((Object[]) r)).findFirst();
    }

    /** Every stored version of a definition, newest first. */
    public List<DefinitionVersion> definitionVersions(EntityManager em, String workflowId) {
        List<?> rows = new NativeSql().sql("SELECT workflow_id, version, origin, created_at, document"
                + " FROM cyclium_workflow_definition_versions WHERE workflow_id = ").value(workflowId)
                .sql(" ORDER BY version DESC").query(em).getResultList();
        return rows.stream().map(r -> definitionVersion((Object[]) r)).toList();
    }

    /** A step of an in-flight instance that has still to run (pending, queued, or failed with a retry due). */
    public record StepToRun(String instanceId, String workflowId, long definitionVersion, String stepId) {
    }

    /** Up to {@code limit} steps of in-flight instances that have still to run, by instance id. */
    public List<StepToRun> stepsToRun(EntityManager em, int limit) {
        List<?> rows = new NativeSql().sql("SELECT i.id, i.workflow_id, i.definition_version, s.step_id"
                + " FROM cyclium_workflow_instances i JOIN cyclium_workflow_steps s ON s.instance_id = i.id"
                + " WHERE i.status IN ('" + String.join("', '", InstanceStatus.IN_FLIGHT) + "')"
                + " AND (s.state IN ('pending', 'queued') OR (s.state = 'failed' AND s.next_attempt_at IS NOT NULL))"
                + " ORDER BY i.id, s.step_id ").around(limit, vendor::firstRows).query(em).getResultList();
        return rows.stream().map(r -> (Object[]) r).map(c -> new StepToRun((String) c[0], (String) c[1],
                ((Number) c[2]).longValue(), (String) c[3])).toList();
    }

    /** A definition's in-flight instances per version they run (version, count). */
    public java.util.Map<Long, Long> inFlightByVersion(EntityManager em, String workflowId) {
        List<?> rows = new NativeSql().sql("SELECT definition_version, COUNT(*) FROM cyclium_workflow_instances"
                + " WHERE workflow_id = ").value(workflowId).sql(" AND status IN ('"
                + String.join("', '", InstanceStatus.IN_FLIGHT) + "') GROUP BY definition_version").query(em).getResultList();
        java.util.Map<Long, Long> out = new java.util.HashMap<>();
        for (Object r : rows) {
            Object[] c = (Object[]) r;
            out.put(((Number) c[0]).longValue(), ((Number) c[1]).longValue());
        }
        return out;
    }

    private static DefinitionVersion definitionVersion(Object[] c) {
        return new DefinitionVersion((String) c[0], ((Number) c[1]).longValue(), (String) c[2], time(c[3]), text(c[4]));
    }

    /**
     * Instances in flight per workflow and status (workflow id, status, count): the in-flight rows
     * only, which the partial in-flight index holds on PostgreSQL and SQL Server.
     */
    public List<Object[]> inFlightCounts(EntityManager em) {
        return em.createNativeQuery("SELECT workflow_id, status, COUNT(*) FROM cyclium_workflow_instances"
                + " WHERE status IN ('" + String.join("', '", InstanceStatus.IN_FLIGHT) + "') GROUP BY workflow_id, status")
                .getResultList();
    }

    /** Per workflow: instances by status over the latest {@code window} instances (success rate, last runs). */
    public List<Object[]> statusCounts(EntityManager em) {
        return em.createNativeQuery("SELECT workflow_id, status, COUNT(*), MAX(started_at) FROM cyclium_workflow_instances"
                + " GROUP BY workflow_id, status").getResultList();
    }

    private static EpisodeOutcome outcome(Object[] c) {
        return new EpisodeOutcome((String) c[0], (String) c[1], (String) c[2], text(c[3]), c[4] != null);
    }

    private static InstanceRow instance(Object[] c) {
        String ref = text(c[4]);
        JsonObject payload = ref == null || ref.isBlank() ? jakarta.json.JsonValue.EMPTY_JSON_OBJECT : JsonText.parseObject(ref);
        return new InstanceRow((String) c[0], (String) c[1], (String) c[2], (String) c[3], payload, (String) c[5],
                (String) c[6], (String) c[7], ((Number) c[8]).longValue(), time(c[9]), time(c[10]), (String) c[11], text(c[12]),
                c[13] == null ? null : ((Number) c[13]).longValue(), intOrNull(c[14]), intOrNull(c[15]), intOrNull(c[16]),
                text(c[17]), text(c[18]), (String) c[19], ((Number) c[20]).longValue());
    }

    private static StepRow step(Object[] c) {
        return new StepRow((String) c[0], (String) c[1], (String) c[2], ((Number) c[3]).intValue(), ((Number) c[4]).intValue(),
                bool(c[5]), time(c[6]), time(c[7]), (String) c[8], time(c[9]), time(c[10]), time(c[11]),
                ((Number) c[12]).longValue(), (String) c[13], text(c[14]), ((Number) c[15]).longValue());
    }

    private static Integer intOrNull(Object o) {
        return o == null ? null : ((Number) o).intValue();
    }

    static boolean bool(Object o) {
        return o instanceof Boolean b ? b : o instanceof Number n && n.intValue() != 0;
    }

    static LocalDateTime time(Object o) {
        return o == null ? null : DbClock.toLocalDateTime(o);
    }

    /** CLOB columns come back as String or as a Clob, by driver. */
    static String text(Object o) {
        return io.cyclium.store.NativeSql.text(o);
    }

    private static String prefixed(String prefix, String columns) {
        return String.join(", ", java.util.Arrays.stream(columns.split(",\\s*")).map(c -> prefix + c.trim()).toList());
    }
}
