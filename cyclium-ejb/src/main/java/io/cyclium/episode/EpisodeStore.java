package io.cyclium.episode;

import io.cyclium.store.Jsons;
import io.cyclium.keys.EpisodeRef;

import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.JsonText;
import io.cyclium.store.NativeSql;
import io.cyclium.store.UniqueInsert;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.persistence.EntityManager;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Owns the SQL of episodes, their journal and checkpoints. Every status change is a guarded UPDATE
 * that re-states the status it expects; zero rows means the episode moved on (another node, an
 * operator, the sweep) and the caller treats that as a normal outcome. Times are the database's
 * UTC clock.
 */
public class EpisodeStore {

    /** The phase the drain stamps on a node's running episodes; the sweep restarts them at once. */
    public static final String INTERRUPTED_PHASE = "interrupted";

    /**
     * The phase of an episode an operator ordered to go on (restarted, approved, its wait resolved):
     * it resumes from its checkpoint on a node that runs its actor. Not a crash: recovery resumes it
     * whatever the episode's recovery policy — at once when no node took it ({@code run_node} null),
     * after the usual quiet time when one did and then went silent.
     */
    public static final String RESUME_DUE_PHASE = "resume_due";

    /** Journal details are capped so one chatty observation cannot bloat the table. */
    static final int MAX_DETAIL_CHARS = 65_536;

    private final DatabaseVendor vendor;

    public EpisodeStore(DatabaseVendor vendor) {
        this.vendor = vendor;
    }

    private String now() {
        return vendor.utcNow();
    }

    public DatabaseVendor vendor() {
        return vendor;
    }

    /**
     * Inserts the episode row. Returns false when the unique index on active dedupe keys refused it:
     * another node (or an earlier trigger) already holds this key, which is the normal way a
     * duplicate trigger ends.
     */
    public boolean insert(EntityManager em, NewEpisode e) {
        Map<String, Object> columns = new LinkedHashMap<>();
        columns.put("id", e.id());
        columns.put("actor_id", e.actorId());
        columns.put("expectation_id", e.expectationId());
        columns.put("spec_rev", e.specRev());
        columns.put("trigger_type", e.trigger().type());
        columns.put("trigger_ref", e.trigger().toJson().toString());
        columns.put("dedupe_key", e.dedupeKey());
        columns.put("status", "running");
        columns.put("mode", "live");
        columns.put("attempts", 1);
        columns.put("max_attempts", e.maxAttempts());
        columns.put("turns_used", 0);
        columns.put("budget", budgetJson(e.budget()));
        columns.put("run_node", e.runNode());
        columns.put("cancel_requested", Boolean.FALSE);
        columns.put("workflow_instance_id", e.workflowInstanceId());
        columns.put("workflow_step_id", e.workflowStepId());
        columns.put("source_stack", e.sourceStack());
        columns.put("source_env", e.sourceEnv());
        if (e.traceParent() != null) {
            // only when tracing is on: the statement's shape (and the batches it joins) is unchanged when off
            columns.put("trace_parent", e.traceParent());
        }
        if (e.expectationVersion() != null) {
            // only for a versioned expectation: an unversioned one's statement keeps its shape
            columns.put("expectation_version", e.expectationVersion());
        }
        if (e.concurrencyKey() != null) {
            // only under a declared limit, as above
            columns.put("concurrency_key", e.concurrencyKey());
        }
        if (e.priority() != 0) {
            columns.put("priority", e.priority());
        }
        if (e.stepKey() != null) {
            // only for a workflow step that declares a key of its own, as above
            columns.put("step_key_scope", e.stepKey().scope());
            columns.put("step_key", e.stepKey().key());
            columns.put("step_key_limit", e.stepKey().limit());
        }
        columns.put("queued_at", e.queued() ? NativeSql.raw(now()) : null);
        columns.put("started_at", NativeSql.raw(now()));
        columns.put("updated_at", NativeSql.raw(now()));
        // A taken key is an answer, not an error: no exception, no warning in the log, and the
        // transaction stays usable (PostgreSQL would abort it on a failed INSERT).
        return UniqueInsert.insert(em, vendor, "cyclium_episodes", e.id(), new NativeSql().insert("cyclium_episodes", columns));
    }

    /** Whether a row with this id exists (a rerun whose first run may have committed looks for its own insert). */
    public boolean exists(EntityManager em, String episodeId) {
        Number n = (Number) em.createNativeQuery("SELECT COUNT(*) FROM cyclium_episodes WHERE id = ?1")
                .setParameter(1, episodeId).getSingleResult();
        return n.intValue() > 0;
    }

    /** A value, or SQL NULL written into the text (PostgreSQL cannot type a bound null). */
    private static Object orNull(Object value) {
        return value == null ? NativeSql.raw("NULL") : value;
    }

    static String budgetJson(Budget b) {
        return b == null ? null : "{\"maxSteps\":" + b.maxSteps() + ",\"maxWallMs\":" + b.maxWall().toMillis() + "}";
    }

    static Budget budgetFrom(String json, Budget fallback) {
        JsonObject o = JsonText.parseObject(json);
        if (!o.containsKey("maxSteps")) {
            return fallback;
        }
        return new Budget(o.getInt("maxSteps"), java.time.Duration.ofMillis(o.getJsonNumber("maxWallMs").longValue()));
    }

    /** Everything a task needs to run (or resume) the episode, in a few reads. */
    public Optional<RunSnapshot> snapshot(EntityManager em, String episodeId, Budget fallbackBudget) {
        EpisodeEntity e = em.find(EpisodeEntity.class, episodeId);
        if (e == null) {
            return Optional.empty();
        }
        Number maxStep = (Number) em.createNativeQuery(
                        "SELECT COALESCE(MAX(step_no), 0) FROM cyclium_episode_steps WHERE episode_id = ?1")
                .setParameter(1, episodeId).getSingleResult();
        List<CheckpointEntity> cps = em.createQuery("SELECT c FROM CheckpointEntity c WHERE c.episodeId = :id"
                        + " ORDER BY c.checkpointNo DESC", CheckpointEntity.class)
                .setParameter("id", episodeId).setMaxResults(1).getResultList();
        Optional<RunSnapshot.SavedCheckpoint> checkpoint = cps.stream().findFirst()
                .map(c -> new RunSnapshot.SavedCheckpoint(c.checkpointNo, c.phase, c.schemaVersion, c.state));
        // A resolution counts when the newest approval/wait entry is a "resolved" one right after
        // its request, and no checkpoint was taken since the block's (its number is the request's
        // step number): the state to resume is then the one the strategy had when it blocked, and
        // the result is handed to it again — also when an earlier run resumed with it and died
        // before its next checkpoint (a signal's payload, a sleep's end or an approval is not lost
        // with that run). A checkpoint after the request means the strategy has moved past it.
        List<EpisodeStepEntity> gates = em.createQuery("SELECT s FROM EpisodeStepEntity s WHERE s.episodeId = :id"
                        + " AND s.kind IN :kinds ORDER BY s.stepNo DESC", EpisodeStepEntity.class)
                .setParameter("id", episodeId)
                .setParameter("kinds", List.of(StepKind.APPROVAL_REQUESTED, StepKind.APPROVAL_RESOLVED,
                        StepKind.WAIT_STARTED, StepKind.WAIT_RESOLVED))
                .setMaxResults(2).getResultList();
        Optional<RunSnapshot.Resolution> resolution = Optional.empty();
        if (gates.size() >= 2) {
            EpisodeStepEntity newest = gates.get(0);
            EpisodeStepEntity before = gates.get(1);
            boolean approval = newest.kind.equals(StepKind.APPROVAL_RESOLVED) && before.kind.equals(StepKind.APPROVAL_REQUESTED);
            boolean wait = newest.kind.equals(StepKind.WAIT_RESOLVED) && before.kind.equals(StepKind.WAIT_STARTED);
            boolean stateFromBlock = checkpoint.map(c -> c.number() <= before.stepNo).orElse(true);
            if ((approval || wait) && stateFromBlock) {
                resolution = Optional.of(new RunSnapshot.Resolution(newest.kind, JsonText.parseObject(before.detail),
                        JsonText.parseObject(newest.detail)));
            }
        }
        TriggerInfo trigger = TriggerInfo.fromJson(JsonText.parseObject(e.triggerRef));
        return Optional.of(new RunSnapshot(new EpisodeRef(e.id, e.actorId, e.expectationId, e.dedupeKey, e.sourceStack,
                e.sourceEnv), e.status, trigger, e.attempts, e.maxAttempts, budgetFrom(e.budget, fallbackBudget),
                e.cancelRequested, maxStep.intValue() + 1, checkpoint, resolution, e.workflowInstanceId, e.workflowStepId,
                e.traceParent));
    }

    /**
     * Appends a journal entry. The primary key (episode_id, step_no) makes this the single-writer
     * check: false means another task already wrote this step number, so this one is not the
     * episode's owner any more.
     */
    public boolean journal(EntityManager em, String episodeId, int stepNo, String kind, String node, JsonValue detail,
            String errorClass, String sideEffectKey, Long costMs) {
        Map<String, Object> columns = new LinkedHashMap<>();
        columns.put("episode_id", episodeId);
        columns.put("step_no", stepNo);
        columns.put("kind", kind);
        columns.put("node_identity", node);
        columns.put("detail", cap(detail));
        columns.put("error_class", errorClass);
        columns.put("side_effect_key", sideEffectKey);
        columns.put("cost_ms", costMs);
        columns.put("created_at", NativeSql.raw(now()));
        // a new row whose key alone guards it
        return UniqueInsert.insertNaturalKey(em, vendor, new NativeSql().insert("cyclium_episode_steps", columns).independent());
    }

    /**
     * Whether journal step {@code stepNo} of the episode is there as this node wrote it: a write
     * run again after its commit's answer was lost finds its own row this way (the step number came
     * from this run's snapshot, and one node never runs two tasks of an episode, so a row of this
     * kind by this node at this number is the earlier run's).
     */
    public boolean journaledBy(EntityManager em, String episodeId, int stepNo, String kind, String node) {
        Number n = (Number) em.createNativeQuery("SELECT COUNT(*) FROM cyclium_episode_steps WHERE episode_id = ?1"
                        + " AND step_no = ?2 AND kind = ?3 AND node_identity = ?4")
                .setParameter(1, episodeId).setParameter(2, stepNo).setParameter(3, kind).setParameter(4, node)
                .getSingleResult();
        return n.intValue() > 0;
    }

    static String cap(JsonValue detail) {
        if (detail == null || detail == JsonValue.NULL) {
            return null;
        }
        String text = detail.toString();
        if (text.length() <= MAX_DETAIL_CHARS) {
            return text;
        }
        return Jsons.object()
                .add("truncated", true)
                .add("originalChars", text.length())
                .add("preview", text.substring(0, 4_000))
                .build().toString();
    }

    public void checkpoint(EntityManager em, String episodeId, int number, String phase, int version, String state) {
        em.createNativeQuery("INSERT INTO cyclium_episode_checkpoints (episode_id, checkpoint_no, phase, schema_version,"
                        + " state, created_at) VALUES (?1, ?2, ?3, ?4, ?5, " + now() + ")")
                .setParameter(1, episodeId)
                .setParameter(2, number)
                .setParameter(3, phase)
                .setParameter(4, version)
                .setParameter(5, state)
                .executeUpdate();
    }

    /** Marks a queued or recovered episode as running here. 0 rows: it is no longer running. */
    public int claimRun(EntityManager em, String episodeId, String node) {
        // A recovered episode spends an attempt here, when it starts, not when the sweep claimed it
        // (attempts before phase: MariaDB evaluates SET left to right, with the values already assigned)
        return em.createNativeQuery("UPDATE cyclium_episodes SET attempts = attempts + CASE WHEN phase = 'recovering'"
                        + " THEN 1 ELSE 0 END, run_node = ?1, queued_at = NULL, phase = NULL, updated_at = " + now()
                        + " WHERE id = ?2 AND status = 'running'")
                .setParameter(1, node).setParameter(2, episodeId).executeUpdate();
    }

    /**
     * Moves a running episode to a terminal status. Guarded on {@code running}: 0 rows means it was
     * canceled, recovered or finished by someone else in the meantime.
     */
    public int finish(EntityManager em, String episodeId, EpisodeStatus status, int turnsUsed, String summary,
            String errorClass, String errorDetail) {
        return finish(em, episodeId, status, turnsUsed, summary, errorClass, errorDetail, true);
    }

    /**
     * {@link #finish(EntityManager, String, EpisodeStatus, int, String, String, String)} for a caller
     * that knows whether the episode has checkpoints: without any, a {@code done} costs no DELETE.
     */
    public int finish(EntityManager em, String episodeId, EpisodeStatus status, int turnsUsed, String summary,
            String errorClass, String errorDetail, boolean checkpointsMayExist) {
        int n = new NativeSql().sql("UPDATE cyclium_episodes SET status = ").value(status.wire())
                .sql(", turns_used = ").value(turnsUsed)
                .sql(", summary = ").value(orNull(summary))
                .sql(", error_class = ").value(orNull(errorClass))
                .sql(", error_detail = ").value(orNull(errorDetail))
                .sql(", phase = NULL, queued_at = NULL, finished_at = " + now() + ", updated_at = " + now() + " WHERE id = ").value(episodeId)
                .sql(" AND status = 'running'")
                .independent() // its own row, guarded by its own status
                .executeUpdate(em);
        if (n == 1 && status == EpisodeStatus.DONE && checkpointsMayExist) {
            // A finished episode never resumes; its checkpoints are dead weight.
            em.createNativeQuery("DELETE FROM cyclium_episode_checkpoints WHERE episode_id = ?1")
                    .setParameter(1, episodeId).executeUpdate();
        }
        return n;
    }

    /**
     * An operator's restart: a failed or canceled episode becomes running again, phase
     * {@code interrupted}, attempts and turns back to zero, so that a node running its actor resumes
     * it from the latest checkpoint (this node at once, or any node's sweep). Outputs already
     * delivered stay delivered: their keys make a second delivery a duplicate. Guarded on the
     * status read by the caller: 0 rows means someone else restarted or archived it first, or its
     * retry is being (or was) started: {@code retried_by} is set from a retry timer's claim on
     * ({@code EpisodeRetryStore#claim}), and that claim needs the row still failed, so of a restart
     * and a timer starting the same failure's next attempt exactly one wins.
     */
    public int restart(EntityManager em, String episodeId, EpisodeStatus from) {
        return new NativeSql().sql("UPDATE cyclium_episodes SET status = 'running', phase = '"
                        + RESUME_DUE_PHASE + "', attempts = 0, turns_used = 0, cancel_requested = ")
                .value(Boolean.FALSE)
                .sql(", error_class = NULL, error_detail = NULL, summary = NULL, finished_at = NULL, run_node = NULL,"
                        // a retry waiting on this failure is replaced by the restart (no second run
                        // beside it); if the restarted run fails, its retry is decided afresh
                        + " queued_at = NULL, retry_due_at = NULL, updated_at = " + now() + " WHERE id = ").value(episodeId)
                .sql(" AND status = ").value(from.wire()).sql(" AND archived_at IS NULL AND retried_by IS NULL")
                .executeUpdate(em);
    }

    /** This node holds the (running) episode in its queue. 0 rows: it is no longer running. */
    public int markQueued(EntityManager em, String episodeId, String node) {
        return em.createNativeQuery("UPDATE cyclium_episodes SET run_node = ?1, queued_at = " + now() + ", updated_at = " + now()
                        + " WHERE id = ?2 AND status = 'running'")
                .setParameter(1, node).setParameter(2, episodeId).executeUpdate();
    }

    /**
     * A task of this node found the episode's lease taken and gives up: the row stops saying it
     * waits in this node's queue, so the heartbeat no longer vouches for it and, if the lease's
     * holder does not run it either, it goes stale and the sweep recovers it. 0 rows: it moved on.
     */
    public int unmarkQueued(EntityManager em, String episodeId, String node) {
        return em.createNativeQuery("UPDATE cyclium_episodes SET run_node = NULL, queued_at = NULL"
                        + " WHERE id = ?1 AND run_node = ?2 AND status = 'running' AND queued_at IS NOT NULL")
                .setParameter(1, episodeId).setParameter(2, node).executeUpdate();
    }

    /**
     * A fresh episode that waited in this node's queue has left it: its first write says so (a
     * trivial one's finish does, in the same UPDATE). 0 rows: it was not marked queued.
     */
    public int leftQueue(EntityManager em, String episodeId) {
        return em.createNativeQuery("UPDATE cyclium_episodes SET queued_at = NULL WHERE id = ?1 AND queued_at IS NOT NULL")
                .setParameter(1, episodeId).executeUpdate();
    }

    /** running → blocked (approval or wait). 0 rows: no longer running here. */
    public int block(EntityManager em, String episodeId, int turnsUsed) {
        return em.createNativeQuery("UPDATE cyclium_episodes SET status = 'blocked', turns_used = ?1, queued_at = NULL, updated_at = " + now()
                        + " WHERE id = ?2 AND status = 'running'")
                .setParameter(1, turnsUsed).setParameter(2, episodeId).executeUpdate();
    }

    /**
     * blocked → running (approved, wait resolved: phase {@link #RESUME_DUE_PHASE}, so that recovery
     * resumes it if {@code runNode} does not — or there is none) or canceled (denied).
     * 0 rows: not blocked any more.
     */
    public int unblock(EntityManager em, String episodeId, EpisodeStatus to, String runNode) {
        boolean terminal = to.terminal();
        return new NativeSql().sql("UPDATE cyclium_episodes SET status = ").value(to.wire())
                .sql(", run_node = ").value(orNull(runNode))
                .sql(terminal ? "" : ", phase = '" + RESUME_DUE_PHASE + "'")
                .sql(", updated_at = " + now() + (terminal ? ", finished_at = " + now() + ", error_class = 'denied'" : ""))
                .sql(" WHERE id = ").value(episodeId).sql(" AND status = 'blocked'")
                .executeUpdate(em);
    }

    /**
     * blocked → running again, in the transaction that just blocked it: a signal kept for the wait
     * it starts was there (the run goes on with it instead of leaving). 0 rows: not blocked.
     */
    public int stayRunning(EntityManager em, String episodeId) {
        return em.createNativeQuery("UPDATE cyclium_episodes SET status = 'running' WHERE id = ?1 AND status = 'blocked'")
                .setParameter(1, episodeId).executeUpdate();
    }

    /** Flags a running episode for cancel at its next step boundary. */
    public int requestCancel(EntityManager em, String episodeId) {
        return em.createNativeQuery("UPDATE cyclium_episodes SET cancel_requested = ?1, updated_at = " + now()
                        + " WHERE id = ?2 AND status = 'running'")
                .setParameter(1, Boolean.TRUE).setParameter(2, episodeId).executeUpdate();
    }

    /** Cancels an episode that is not executing (blocked, or queued and never started). */
    public int cancelIdle(EntityManager em, String episodeId, boolean queuedOnly) {
        return em.createNativeQuery("UPDATE cyclium_episodes SET status = 'canceled', error_class = 'canceled', phase = NULL,"
                        + " finished_at = " + now() + ", updated_at = " + now() + " WHERE id = ?1 AND "
                        + (queuedOnly ? "status = 'running' AND queued_at IS NOT NULL" : "status = 'blocked'"))
                .setParameter(1, episodeId).executeUpdate();
    }

    /** The details of the episode's journal rows of {@code kind}, oldest first. */
    public List<String> journalDetails(EntityManager em, String episodeId, String kind) {
        return em.createQuery("SELECT s.detail FROM EpisodeStepEntity s WHERE s.episodeId = :id AND s.kind = :kind"
                        + " ORDER BY s.stepNo", String.class)
                .setParameter("id", episodeId).setParameter("kind", kind).getResultList();
    }

    /** The next free journal step number (single writer: the current owner). */
    public int nextStepNo(EntityManager em, String episodeId) {
        Number n = (Number) em.createNativeQuery("SELECT COALESCE(MAX(step_no), 0) FROM cyclium_episode_steps WHERE episode_id = ?1")
                .setParameter(1, episodeId).getSingleResult();
        return n.intValue() + 1;
    }

    public Optional<EpisodeEntity> find(EntityManager em, String episodeId) {
        return Optional.ofNullable(em.find(EpisodeEntity.class, episodeId));
    }
}
