package io.cyclium.workflow;

import io.cyclium.store.DatabaseTime;
import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.Jsons;
import io.cyclium.store.NativeSql;
import io.cyclium.store.RunAgain;
import io.cyclium.store.UniqueInsert;
import jakarta.persistence.EntityManager;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Every write to workflow instances, steps and their journal, each a guarded (state-, attempt- or
 * episode-checked) conditional UPDATE in the caller's transaction. Engines on several nodes react
 * to the same events and sweeps; a write that affects zero rows means another engine made that
 * transition first, which is normal: the caller then does nothing more for it. Each method that
 * returns a count journals its transition itself when it wins, in the same transaction, so the
 * journal never records a transition that lost its race.
 *
 * <p>Every time it writes — when a step was queued, started and finished, when its retry is due,
 * an instance's start and end, a transition's — is the database's clock ({@link DatabaseTime}),
 * like a lease's: the retry timers of all nodes compare due times with that clock, so a node whose
 * own clock is off can neither make a retry due early nor late.
 */
public final class WorkflowStore {

    private final DatabaseVendor vendor;
    /** The database's clock; in a held transaction's store, the one instant it read the steps at ({@link #at}). */
    private DatabaseTime time;
    /** The instant of {@link #at}, or null. */
    private LocalDateTime fixedAt;
    private final String node;
    /**
     * Transitions journaled but not yet written ({@link #buffered}): null when each is written at
     * once. One engine's work inside one transaction only: never shared between threads.
     */
    private final List<Map<String, Object>> unwritten;
    /** Per instance, the number of its last transition as read under its hold ({@link #continueJournal}). */
    private final Map<String, Long> lastTransition = new HashMap<>();
    /**
     * Guarded UPDATEs issued but not yet sent ({@link #combineWrites}), each with what it does (for
     * the message when it matched nothing). One engine's work inside one transaction only.
     */
    private final List<Deferred> deferred = new ArrayList<>();
    private boolean combining;
    /**
     * On PostgreSQL, the instance whose row this transaction holds ({@link #holding}): if it writes
     * any step, it updates that row too before it commits (see {@link WorkflowQueries#heldInstanceWithSteps}).
     */
    private String held;
    private boolean wroteSteps;
    private boolean heldRowUpdated;

    private record Deferred(NativeSql update, String what) {
    }

    /** The most guarded UPDATEs one combined statement carries (a list of starts issues hundreds). */
    private static final int MAX_COMBINED = 64;

    public WorkflowStore(DatabaseTime time, String node) {
        this(time, node, null);
    }

    private WorkflowStore(DatabaseTime time, String node, List<Map<String, Object>> unwritten) {
        this.vendor = time.vendor();
        this.time = time;
        this.node = node;
        this.unwritten = unwritten;
    }

    /** The database this store writes to. */
    public io.cyclium.store.DatabaseVendor vendor() {
        return vendor;
    }

    /**
     * This store for the writes of one transaction that ends with {@link #writeJournal}: the
     * transitions its guarded writes journal are kept and written then, all in one INSERT (a
     * step's advancement journals two to four), instead of one INSERT each. Only a transition
     * whose write won is kept, as before; a transaction that does not commit writes none of them.
     */
    WorkflowStore buffered() {
        return new WorkflowStore(time, node, new ArrayList<>());
    }

    /**
     * The instance's last transition number, read by this transaction while it holds the
     * instance's row (or 0 for an instance it inserted): the buffered rows of that instance are
     * numbered from it with bound values, so their INSERT's text depends only on how many rows it
     * has (planned once per shape, where a number subquery per row was planned at every call).
     */
    void continueJournal(String instanceId, long last) {
        if (unwritten != null) {
            lastTransition.put(instanceId, last);
        }
    }

    /**
     * From now on, on PostgreSQL, this {@link #buffered} store's guarded UPDATEs of steps and of the
     * instance (finish, queue-and-attach, move, end) are sent together with the transitions in one
     * statement at {@link #writeJournal} — data-modifying {@code WITH} parts, each {@code RETURNING}
     * the row it changed — instead of one statement each. Only for an engine that holds the
     * instance's row (or inserted it) and reads the steps under that hold: what it read cannot
     * change except by another engine queueing a pending step, so each UPDATE answers 1 when issued
     * and is checked when sent; one that matched nothing makes the whole transaction run again
     * ({@link RunAgain}), as a lost queue-and-attach always did. Any other statement of the store,
     * and every read the engine makes ({@link #flush}), sends what is waiting first, so nothing is
     * read or written out of its order. Other databases send each UPDATE when issued.
     */
    void combineWrites(EntityManager em) {
        combining = unwritten != null && vendor == DatabaseVendor.POSTGRESQL && NativeSql.runsNow(em);
    }

    /**
     * This {@link #buffered} store works for a transaction that holds {@code instanceId}'s row (read
     * with {@link WorkflowQueries#heldInstanceWithSteps} or {@link WorkflowQueries#heldInstance});
     * {@code combine}: its writes are combined ({@link #combineWrites}). On PostgreSQL, a
     * transaction that writes any of the instance's steps then also updates the instance's row
     * (a move, an end, a hold, or at {@link #writeJournal} an UPDATE that changes nothing but the
     * row's version in the database's own bookkeeping): that is how the next holder, whose one
     * statement read the steps before this transaction committed, knows to read them again.
     */
    void holding(EntityManager em, String instanceId, boolean combine) {
        if (unwritten != null && vendor == DatabaseVendor.POSTGRESQL) {
            held = instanceId;
        }
        if (combine) {
            combineWrites(em);
        }
    }

    /**
     * Every time this {@link #buffered} store writes from now on is {@code readAt}: the database's
     * clock when the transaction read the instance's steps, after it took the instance's row (so
     * no earlier than anything the holder before it wrote). A step's advancement then writes one
     * instant — the step's finish and run time, the next steps' queueing, the instance's end and
     * its duration, the transitions — and needs no statement to read the clock for the duration.
     * A store that follows another clock (tests that advance time) keeps it.
     */
    void at(LocalDateTime readAt) {
        if (unwritten != null && readAt != null && time.now() instanceof NativeSql.Raw) {
            time = DatabaseTime.following(vendor, java.time.Clock.fixed(readAt.toInstant(java.time.ZoneOffset.UTC),
                    java.time.ZoneOffset.UTC));
            fixedAt = readAt;
        }
    }

    /** The whole milliseconds a step ran from {@code queuedAt} to {@code until} (never negative). */
    static long runMillis(LocalDateTime queuedAt, LocalDateTime until) {
        return Math.max(0, Duration.between(queuedAt, until).toMillis());
    }

    /** A write of a step ({@code instanceRow} null) or of an instance's row: what {@link #holding} needs to know. */
    private void wrote(String instanceRow) {
        if (instanceRow == null) {
            wroteSteps = true;
        } else if (instanceRow.equals(held)) {
            heldRowUpdated = true;
        }
    }

    /** Sends the guarded UPDATEs waiting in this store ({@link #combineWrites}), checking that each changed its row. */
    void flush(EntityManager em) {
        if (deferred.isEmpty()) {
            return;
        }
        checked(em, combined(null));
    }

    /**
     * Writes the transitions kept by a {@link #buffered} store, in the order they were journaled, in one INSERT
     * (with the UPDATEs still waiting, when it {@link #combineWrites combines them}).
     */
    void writeJournal(EntityManager em) {
        if (held != null && wroteSteps && !heldRowUpdated) {
            // sent with the rest below: one more part of the combined statement, not a statement of its own
            deferred.add(new Deferred(new NativeSql().sql("UPDATE cyclium_workflow_instances SET version = version WHERE id = ")
                    .value(held), "updating held instance " + held));
            heldRowUpdated = true;
        }
        if (unwritten == null || unwritten.isEmpty()) {
            flush(em);
            return;
        }
        List<Map<String, Object>> rows = new ArrayList<>(unwritten);
        unwritten.clear();
        if (deferred.isEmpty() || rows.size() > MAX_TRANSITIONS_AT_ONCE) {
            insertTransitions(em, rows); // sends what waits first
            return;
        }
        NativeSql transitions = transitionsInsert(rows);
        checked(em, combined(transitions));
        numbered(rows);
    }

    /** Runs a guarded UPDATE now, or keeps it for the combined statement ({@link #combineWrites}). */
    private int guarded(EntityManager em, NativeSql update, String what, String instanceRow) {
        if (!combining) {
            int n = update.executeUpdate(em);
            if (n == 1) {
                wrote(instanceRow);
            }
            return n;
        }
        wrote(instanceRow); // checked when sent: if it changes nothing, the transaction runs again
        deferred.add(new Deferred(update, what));
        if (deferred.size() >= MAX_COMBINED) {
            flush(em);
        }
        return 1;
    }

    /**
     * {@code WITH w1 AS (UPDATE … RETURNING 1), … [, j AS (INSERT INTO cyclium_workflow_transitions …)]
     * SELECT (SELECT COUNT(*) FROM w1), …}: PostgreSQL runs every part once, to completion, whether or
     * not the SELECT reads it; the UPDATEs touch different rows. The waiting UPDATEs are taken.
     */
    private Combined combined(NativeSql transitions) {
        List<Deferred> parts = new ArrayList<>(deferred);
        deferred.clear();
        NativeSql sql = new NativeSql().sql("WITH ");
        for (int i = 0; i < parts.size(); i++) {
            sql.sql(i == 0 ? "w" : ", w").sql(Integer.toString(i + 1)).sql(" AS (").append(parts.get(i).update()).sql(" RETURNING 1)");
        }
        if (transitions != null) {
            sql.sql(", j AS (").append(transitions).sql(")");
        }
        sql.sql(" SELECT ");
        for (int i = 0; i < parts.size(); i++) {
            sql.sql(i == 0 ? "" : ", ").sql("(SELECT COUNT(*) FROM w" + (i + 1) + ")");
        }
        return new Combined(sql, parts);
    }

    private record Combined(NativeSql sql, List<Deferred> parts) {
    }

    private static void checked(EntityManager em, Combined c) {
        Object result = c.sql().query(em).getSingleResult();
        Object[] counts = result instanceof Object[] row ? row : new Object[] {result};
        for (int i = 0; i < counts.length; i++) {
            if (((Number) counts[i]).longValue() != 1) {
                throw new RunAgain(c.parts().get(i).what() + " matched no row: another engine changed it meanwhile");
            }
        }
    }

    public DatabaseTime time() {
        return time;
    }

    private static Object orNull(Object value) {
        return value == null ? NativeSql.raw("NULL") : value;
    }

    // ---- definitions -------------------------------------------------------------------------

    /** What storing a definition did: the version new instances now start with, and whether this write stored it. */
    public record SavedDefinition(long version, boolean created) {
    }

    /**
     * Stores a definition. A document other than the current one becomes the next immutable
     * version (a row of {@code cyclium_workflow_definition_versions}) and the current one; the same
     * document again (a redeploy of unchanged code, a repeated PUT) stores no version and writes
     * nothing, unless its origin changed. A code definition keeps the enabled flag an operator set.
     * Every write raises the row's cache stamp {@code version}: that is how other nodes notice a
     * change ({@link WorkflowQueries#pulse}).
     *
     * <p>The new version is taken with a compare-and-set on {@code document_version}, so two writers
     * (two nodes deploying at once, two PUTs) cannot both store the same version number. Returns
     * null, having written nothing the caller must keep, when another writer got there between this
     * transaction's read and its write (or its first insert): the caller reads again in a new
     * transaction (this one may hold a lock the winner's row needs) or reports the conflict.
     */
    public SavedDefinition saveDefinition(EntityManager em, WorkflowDefinition def, String document, String origin) {
        String stepIds = String.join(",", def.steps().stream().map(StepDefinition::id).toList());
        String triggerType = def.triggers().stream().map(WorkflowTrigger::type).filter(t -> !WorkflowTrigger.MANUAL.equals(t))
                .findFirst().orElse(WorkflowTrigger.MANUAL);
        String event = def.triggers().stream().map(WorkflowTrigger::event).filter(e -> e != null).findFirst().orElse(null);
        List<?> rows = new NativeSql().sql("SELECT document, document_version, origin FROM cyclium_workflow_definitions"
                + " WHERE workflow_id = ").value(def.id()).query(em).getResultList();
        if (rows.isEmpty()) {
            Map<String, Object> columns = new LinkedHashMap<>();
            columns.put("workflow_id", def.id());
            columns.put("trigger_type", triggerType);
            columns.put("trigger_event", event);
            columns.put("steps", stepIds);
            columns.put("document", document);
            columns.put("origin", origin);
            columns.put("enabled", Boolean.TRUE);
            columns.put("document_version", 1L);
            columns.put("created_at", time.now());
            columns.put("updated_at", time.now());
            // two nodes deploying the same code definition at once: the loser reads the winner's row
            if (!UniqueInsert.insertNaturalKey(em, vendor, new NativeSql().insert("cyclium_workflow_definitions", columns))) {
                return null;
            }
            insertVersion(em, def.id(), 1, document, origin);
            return new SavedDefinition(1, true);
        }
        Object[] current = (Object[]) rows.get(0);
        long version = ((Number) current[1]).longValue();
        if (document.equals(WorkflowQueries.text(current[0]))) {
            if (!origin.equals(current[2])) {
                new NativeSql().sql("UPDATE cyclium_workflow_definitions SET origin = ").value(origin)
                        .sql(", version = version + 1, updated_at = ").value(time.now())
                        .sql(" WHERE workflow_id = ").value(def.id()).executeUpdate(em);
            }
            return new SavedDefinition(version, false);
        }
        int updated = new NativeSql().sql("UPDATE cyclium_workflow_definitions SET document = ").value(document)
                .sql(", origin = ").value(origin).sql(", steps = ").value(stepIds).sql(", trigger_type = ").value(triggerType)
                .sql(", trigger_event = ").value(orNull(event)).sql(", document_version = ").value(version + 1)
                .sql(", version = version + 1, updated_at = ").value(time.now())
                .sql(" WHERE workflow_id = ").value(def.id()).sql(" AND document_version = ").value(version).executeUpdate(em);
        if (updated == 0) {
            return null;
        }
        insertVersion(em, def.id(), version + 1, document, origin);
        return new SavedDefinition(version + 1, true);
    }

    private void insertVersion(EntityManager em, String workflowId, long version, String document, String origin) {
        Map<String, Object> columns = new LinkedHashMap<>();
        columns.put("workflow_id", workflowId);
        columns.put("version", version);
        columns.put("document", document);
        columns.put("origin", origin);
        columns.put("created_at", time.now());
        new NativeSql().insert("cyclium_workflow_definition_versions", columns).executeUpdate(em);
    }

    public int setEnabled(EntityManager em, String workflowId, boolean enabled) {
        return new NativeSql().sql("UPDATE cyclium_workflow_definitions SET enabled = ").value(enabled)
                .sql(", version = version + 1, updated_at = ").value(time.now()).sql(" WHERE workflow_id = ").value(workflowId).executeUpdate(em);
    }

    // ---- instances ---------------------------------------------------------------------------

    /**
     * Inserts a pending instance and its steps. Returns false, writing nothing, when the workflow
     * already has an instance in flight for this subject: the unique in-flight index refused it,
     * whichever node holds the other one.
     */
    public boolean insertInstance(EntityManager em, InstanceRow i, List<StepDefinition> steps) {
        flush(em);
        Map<String, Object> columns = new LinkedHashMap<>();
        columns.put("id", i.id());
        columns.put("workflow_id", i.workflowId());
        columns.put("status", InstanceStatus.PENDING);
        columns.put("step_states", "{\"scheduled\":" + Jsons.provider().createArrayBuilder(
                steps.stream().map(StepDefinition::id).toList()).build() + "}");
        columns.put("trigger_ref", i.payload().toString());
        columns.put("subject_value", i.subject());
        columns.put("target_step", i.targetStep());
        columns.put("source_stack", i.sourceStack());
        columns.put("source_env", i.sourceEnv());
        if (i.traceParent() != null) {
            columns.put("trace_parent", i.traceParent());
        }
        columns.put("version", 0L);
        columns.put("definition_version", i.definitionVersion());
        columns.put("started_at", time.now());
        columns.put("updated_at", time.now());
        if (vendor == DatabaseVendor.POSTGRESQL && NativeSql.runsNow(em) && !steps.isEmpty()) {
            if (insertWithSteps(em, new NativeSql().insert("cyclium_workflow_instances", columns), steps) == 0) {
                return false;
            }
        } else if (!UniqueInsert.insert(em, vendor, "cyclium_workflow_instances", i.id(),
                new NativeSql().insert("cyclium_workflow_instances", columns))) {
            return false;
        } else {
            insertSteps(em, i.id(), steps);
        }
        journal(em, i.id(), null, null, InstanceStatus.PENDING, null, "created" + (i.targetStep() == null ? ""
                : " for outcome " + i.targetStep()) + " with " + steps.size() + " step(s)");
        return true;
    }

    /**
     * PostgreSQL: the instance's INSERT ({@code ON CONFLICT DO NOTHING}, as {@link UniqueInsert})
     * and its steps' in one statement — the steps are selected from the instance the first part
     * inserted, so an instance refused by the in-flight index inserts no step either. Returns the
     * steps inserted: 0 when the instance was refused.
     */
    private int insertWithSteps(EntityManager em, NativeSql instance, List<StepDefinition> steps) {
        // the columns and constants of newStep, in its order
        NativeSql sql = new NativeSql().sql("WITH i AS (").append(instance).sql(" ON CONFLICT DO NOTHING RETURNING id)"
                + " INSERT INTO cyclium_workflow_steps (" + String.join(", ", newStep("", steps.get(0)).keySet())
                + ") SELECT i.id, v.step_id, ").value(StepState.PENDING)
                .sql(", 0, v.max_attempts, v.critical, 0, 0, ").value(time.now()).sql(" FROM i CROSS JOIN (VALUES ");
        for (int n = 0; n < steps.size(); n++) {
            StepDefinition s = steps.get(n);
            sql.sql(n == 0 ? "(" : ", (").value(s.id()).sql(", ").value(s.retry().maxAttempts()).sql(", ").value(s.critical()).sql(")");
        }
        return sql.sql(") AS v (step_id, max_attempts, critical)").executeUpdate(em);
    }

    private void insertSteps(EntityManager em, String instanceId, List<StepDefinition> steps) {
        List<Map<String, Object>> rows = new ArrayList<>(steps.size());
        for (StepDefinition s : steps) {
            rows.add(newStep(instanceId, s));
        }
        new NativeSql().insertRows("cyclium_workflow_steps", rows).executeUpdate(em); // one statement for the whole DAG
    }

    /**
     * A new instance's step row, column by column: pending, no attempt yet. {@link #insertWithSteps}
     * inserts these columns in this order with the same constants (keep the two together).
     */
    private Map<String, Object> newStep(String instanceId, StepDefinition s) {
        Map<String, Object> step = new LinkedHashMap<>();
        step.put("instance_id", instanceId);
        step.put("step_id", s.id());
        step.put("state", StepState.PENDING);
        step.put("attempt", 0);
        step.put("max_attempts", s.retry().maxAttempts());
        step.put("critical", s.critical());
        step.put("run_ms", 0L);
        step.put("version", 0L);
        step.put("updated_at", time.now());
        return step;
    }

    /** Moves an instance from one status to another (version-checked); the blocked reason is set or cleared. */
    public int moveInstance(EntityManager em, String id, String from, long version, String to, String blockedReason,
            String cause) {
        int n = guarded(em, new NativeSql().sql("UPDATE cyclium_workflow_instances SET status = ").value(to)
                .sql(", version = version + 1, blocked_reason = ").value(orNull(blockedReason))
                .sql(", updated_at = ").value(time.now())
                .sql(" WHERE id = ").value(id).sql(" AND status = ").value(from).sql(" AND version = ").value(version),
                "moving instance " + id + " from " + from + " to " + to, id);
        if (n == 1) {
            journal(em, id, null, from, to, null, cause);
        }
        return n;
    }

    /**
     * Holds the instance row while it is running, for the rest of the caller's transaction: a
     * no-op UPDATE that takes the row's lock (0 rows: not running). A retry claimed, or a step's
     * episode created, in the same transaction is thereby ordered against a cancel or abort (whose
     * {@link #finishInstance} updates that row): the cancel that commits first makes this match
     * nothing, and a cancel that comes after it waits for this transaction and then sees what it
     * wrote. A transaction that also writes a step row takes this first only when every other
     * writer of that step row in that state does too (see {@link #holdInFlight}): a journal row's
     * foreign key locks the instance row after the step row.
     */
    public int holdRunning(EntityManager em, String id) {
        flush(em);
        int n = new NativeSql().sql("UPDATE cyclium_workflow_instances SET version = version WHERE id = ").value(id)
                .sql(" AND status = ").value(InstanceStatus.RUNNING).executeUpdate(em);
        if (n == 1) {
            wrote(id);
        }
        return n;
    }

    /**
     * {@link #holdRunning} for an operator's retry of a step, which a blocked instance allows too.
     * Both the operator's retry and the retry timer's claim queue the same step row: both hold the
     * instance row first, so they queue one after the other. (Had one taken the step row first, its
     * journal row — whose foreign key locks the instance row — would wait for the other's hold
     * while the other waited for the step row: a deadlock on MariaDB.)
     */
    public int holdInFlight(EntityManager em, String id) {
        flush(em);
        int n = new NativeSql().sql("UPDATE cyclium_workflow_instances SET version = version WHERE id = ").value(id)
                .sql(" AND status IN (").value(InstanceStatus.RUNNING).sql(", ").value(InstanceStatus.BLOCKED).sql(")")
                .executeUpdate(em);
        if (n == 1) {
            wrote(id);
        }
        return n;
    }

    /** Ends an in-flight instance (completed, failed or canceled) with its statistics, once. */
    public int finishInstance(EntityManager em, String id, String from, long version, String to, String error,
            InstanceStats stats, String cause, LocalDateTime finishedAt) {
        int n = guarded(em, new NativeSql().sql("UPDATE cyclium_workflow_instances SET status = ").value(to)
                .sql(", version = version + 1, blocked_reason = NULL, error_detail = ").value(orNull(error))
                // the database's time, read in this transaction: the duration in the stats is measured with it
                .sql(", finished_at = ").value(Timestamp.valueOf(finishedAt)).sql(", duration_ms = ").value(stats.durationMs())
                .sql(", steps_run = ").value(stats.stepsRun()).sql(", attempts_total = ").value(stats.attempts())
                .sql(", retries_total = ").value(stats.retries()).sql(", critical_path = ").value(String.join(",", stats.criticalPath()))
                .sql(", stats = ").value(stats.toJson().toString()).sql(", updated_at = ").value(time.now())
                .sql(" WHERE id = ").value(id).sql(" AND status = ").value(from).sql(" AND version = ").value(version),
                "ending instance " + id + " as " + to, id);
        if (n == 1) {
            journal(em, id, null, from, to, null, cause);
        }
        return n;
    }

    // ---- steps -------------------------------------------------------------------------------

    /**
     * Queues a step for attempt {@code attempt + 1}: from pending (its dependencies are done) or
     * from failed (a retry). {@code onlyIfDue}: only if the retry is due by the database's clock (the
     * retry timer's claim); false: an operator's retry, due now. Exactly one engine wins the attempt.
     */
    public int queue(EntityManager em, String instanceId, String stepId, String from, int attempt, boolean onlyIfDue,
            String cause) {
        flush(em);
        wrote(null);
        NativeSql sql = new NativeSql().sql("UPDATE cyclium_workflow_steps SET state = 'queued', attempt = attempt + 1,")
                .sql(" next_attempt_at = NULL, episode_id = NULL, error_class = NULL, error_detail = NULL, started_at = NULL,")
                .sql(" finished_at = NULL, queued_at = ").value(time.now()).sql(", version = version + 1, updated_at = ").value(time.now())
                .sql(" WHERE instance_id = ").value(instanceId).sql(" AND step_id = ").value(stepId)
                .sql(" AND state = ").value(from).sql(" AND attempt = ").value(attempt);
        if (onlyIfDue) {
            time.now(sql.sql(" AND next_attempt_at <= "));
        }
        int n = sql.executeUpdate(em);
        if (n == 1) {
            journal(em, instanceId, stepId, from, StepState.QUEUED, attempt + 1, cause);
        }
        return n;
    }

    /**
     * Queues a pending step's first attempt with the episode already launched for it, in one
     * UPDATE (what {@link #queue} and {@link #attachEpisode} did in two): {@code episodeId} null
     * when the launch left it without one (the reconcile launches it later); {@code running} when
     * the episode started here. Only for an engine that holds the instance's row and launched
     * before this: 0 rows means another engine queued the step meanwhile, and the launch must not
     * stand ({@link io.cyclium.store.RunAgain}).
     */
    public int queueAndAttach(EntityManager em, String instanceId, String stepId, String episodeId, boolean running,
            String cause) {
        int n = guarded(em, new NativeSql().sql("UPDATE cyclium_workflow_steps SET state = ").value(running ? StepState.RUNNING : StepState.QUEUED)
                .sql(", attempt = attempt + 1, next_attempt_at = NULL, episode_id = ").value(orNull(episodeId))
                .sql(", error_class = NULL, error_detail = NULL, started_at = ").value(running ? time.now() : NativeSql.raw("NULL"))
                .sql(", finished_at = NULL, queued_at = ").value(time.now()).sql(", version = version + 1, updated_at = ").value(time.now())
                .sql(" WHERE instance_id = ").value(instanceId).sql(" AND step_id = ").value(stepId)
                .sql(" AND state = 'pending' AND attempt = 0"), "queueing pending step " + stepId + " of " + instanceId, null);
        if (n == 1) {
            journal(em, instanceId, stepId, StepState.PENDING, StepState.QUEUED, 1, cause);
            if (running) {
                journal(em, instanceId, stepId, StepState.QUEUED, StepState.RUNNING, 1, "episode " + episodeId + " started");
            }
        }
        return n;
    }

    /**
     * Records the episode that runs a queued attempt (its dedupe key is fixed by the attempt, so
     * whichever engine created it, it is the one episode); {@code running} also moves the step to
     * running (the episode started on this node).
     */
    public int attachEpisode(EntityManager em, String instanceId, String stepId, int attempt, String episodeId,
            boolean running) {
        flush(em);
        wrote(null);
        int n = new NativeSql().sql("UPDATE cyclium_workflow_steps SET episode_id = ").value(episodeId)
                .sql(running ? ", state = 'running', started_at = " : ", started_at = ").value(running ? time.now() : NativeSql.raw("started_at"))
                .sql(", version = version + 1, updated_at = ").value(time.now())
                .sql(" WHERE instance_id = ").value(instanceId).sql(" AND step_id = ").value(stepId)
                .sql(" AND state = 'queued' AND attempt = ").value(attempt).sql(" AND episode_id IS NULL").executeUpdate(em);
        if (n == 1 && running) {
            journal(em, instanceId, stepId, StepState.QUEUED, StepState.RUNNING, attempt, "episode " + episodeId + " started");
        }
        return n;
    }

    /** queued → running once its episode is seen running (a queued or deferred episode that started since). */
    public int markRunning(EntityManager em, String instanceId, String stepId, String episodeId, String cause) {
        flush(em);
        wrote(null);
        int n = new NativeSql().sql("UPDATE cyclium_workflow_steps SET state = 'running', started_at = ").value(time.now())
                .sql(", version = version + 1, updated_at = ").value(time.now())
                .sql(" WHERE instance_id = ").value(instanceId).sql(" AND step_id = ").value(stepId)
                .sql(" AND state = 'queued' AND episode_id = ").value(episodeId).executeUpdate(em);
        if (n == 1) {
            journal(em, instanceId, stepId, StepState.QUEUED, StepState.RUNNING, null, cause);
        }
        return n;
    }

    /**
     * Ends the attempt run by {@code episodeId}: completed, or failed with the next attempt due
     * {@code retryIn} from now by the database's clock (null = failed for good). Guarded by the episode id and an active state, so the same
     * terminal event seen by several engines (or replayed by reconcile) lands once.
     */
    public int finishStep(EntityManager em, StepRow step, String to, Duration retryIn, String errorClass,
            String errorDetail, String cause) {
        NativeSql sql = new NativeSql().sql("UPDATE cyclium_workflow_steps SET state = ").value(to).sql(", next_attempt_at = ");
        if (retryIn == null) {
            sql.sql("NULL");
        } else {
            time.plusMillis(sql, retryIn.toMillis());
        }
        sql.sql(", error_class = ").value(orNull(errorClass)).sql(", error_detail = ").value(orNull(errorDetail))
                .sql(", finished_at = ").value(time.now()).sql(", run_ms = run_ms + ");
        if (fixedAt != null && step.queuedAt() != null) {
            // at one read instant (at): the same whole milliseconds the instance's statistics take for it
            sql.value(runMillis(step.queuedAt(), fixedAt));
        } else {
            // this attempt's time from queued to now, on the clock that wrote queued_at
            time.millisSince(sql.sql("COALESCE("), "queued_at").sql(", 0)");
        }
        int n = guarded(em, sql.sql(", version = version + 1, updated_at = ").value(time.now())
                .sql(" WHERE instance_id = ").value(step.instanceId()).sql(" AND step_id = ").value(step.stepId())
                .sql(" AND episode_id = ").value(step.episodeId()).sql(" AND state IN ('queued', 'running')"),
                "finishing step " + step.stepId() + " of " + step.instanceId() + " (episode " + step.episodeId() + ")", null);
        if (n == 1) {
            journal(em, step.instanceId(), step.stepId(), step.state(), to, step.attempt(), cause);
        }
        return n;
    }

    /** Records an operator's approval of a gated step that has not started. */
    public int approve(EntityManager em, String instanceId, String stepId, String by) {
        flush(em);
        wrote(null);
        int n = new NativeSql().sql("UPDATE cyclium_workflow_steps SET approved_at = ").value(time.now())
                .sql(", approved_by = ").value(by).sql(", version = version + 1, updated_at = ").value(time.now())
                .sql(" WHERE instance_id = ").value(instanceId).sql(" AND step_id = ").value(stepId)
                .sql(" AND state = 'pending' AND approved_at IS NULL").executeUpdate(em);
        if (n == 1) {
            journal(em, instanceId, stepId, StepState.PENDING, StepState.PENDING, null, "approved by " + by);
        }
        return n;
    }

    // ---- journal -----------------------------------------------------------------------------

    public void journal(EntityManager em, String instanceId, String stepId, String from, String to, Integer attempt,
            String cause) {
        Map<String, Object> row = new HashMap<>();
        row.put("id", UUID.randomUUID().toString());
        row.put("instance_id", instanceId);
        row.put("step_id", stepId);
        row.put("from_state", from);
        row.put("to_state", to);
        row.put("attempt", attempt);
        row.put("cause", cause == null ? null : cause.length() > 1000 ? cause.substring(0, 1000) : cause);
        if (unwritten != null) {
            unwritten.add(row);
        } else {
            insertTransitions(em, List.of(row));
        }
    }

    /**
     * One INSERT of transition rows, in journal order. Each row's number is taken in the same
     * statement, not read before it (one round trip): the instance's highest plus the row's place
     * among this INSERT's rows of that instance. Whether a database evaluates each row's subquery
     * before the statement (PostgreSQL, H2) or after the rows before it (MariaDB), the numbers
     * increase in journal order and do not repeat (gaps are allowed; the journal orders by time,
     * then number). The derived table lets MariaDB read the table it inserts into. Transitions of
     * one instance are written while holding one of its rows (instance or step), so two writers
     * do not take the same number.
     */
    private void insertTransitions(EntityManager em, List<Map<String, Object>> rows) {
        flush(em);
        for (int from = 0; from < rows.size(); from += MAX_TRANSITIONS_AT_ONCE) {
            List<Map<String, Object>> part = rows.subList(from, Math.min(rows.size(), from + MAX_TRANSITIONS_AT_ONCE));
            transitionsInsert(part).executeUpdate(em);
            numbered(part); // the next part numbers on from these
        }
    }

    /**
     * The most transition rows one INSERT carries (about nine parameters each): a list of a
     * thousand starts journals thousands, and one statement takes at most 65,535 parameters on
     * PostgreSQL (and a statement that long costs more to prepare than its parts).
     */
    static final int MAX_TRANSITIONS_AT_ONCE = 1_000;

    /** The INSERT of {@link #insertTransitions}, not yet run. */
    private NativeSql transitionsInsert(List<Map<String, Object>> rows) {
        NativeSql sql = new NativeSql().sql("INSERT INTO cyclium_workflow_transitions (id, instance_id, step_id, from_state,"
                + " to_state, attempt, seq, node_identity, cause, created_at) VALUES ");
        Map<String, Integer> placeInInstance = new HashMap<>();
        for (int r = 0; r < rows.size(); r++) {
            Map<String, Object> row = rows.get(r);
            String instanceId = (String) row.get("instance_id");
            int place = placeInInstance.merge(instanceId, 1, Integer::sum);
            sql.sql(r == 0 ? "(" : ", (").value(row.get("id")).sql(", ").value(instanceId);
            for (String column : List.of("step_id", "from_state", "to_state", "attempt")) {
                sql.sql(", ").value(orNull(row.get(column)));
            }
            Long last = lastTransition.get(instanceId);
            if (last != null) {
                sql.sql(", ").value(last + place);
            } else {
                sql.sql(", ").around(instanceId, p -> "(SELECT next_seq FROM (SELECT COALESCE(MAX(seq), 0) + " + place
                        + " AS next_seq FROM cyclium_workflow_transitions WHERE instance_id = " + p + ") seq_of_instance)");
            }
            sql.sql(", ").value(node).sql(", ").value(orNull(row.get("cause"))).sql(", ").value(time.now()).sql(")");
        }
        return sql;
    }

    /** After {@code rows} were written: each instance's last transition number moves past them. */
    private void numbered(List<Map<String, Object>> rows) {
        Map<String, Integer> written = new HashMap<>();
        rows.forEach(row -> written.merge((String) row.get("instance_id"), 1, Integer::sum));
        written.forEach((instanceId, n) -> lastTransition.computeIfPresent(instanceId, (id, last) -> last + n));
    }
}
