package io.cyclium.operations;

import io.cyclium.audit.PendingAudit;
import io.cyclium.store.Jsons;
import io.cyclium.store.DatabaseVendor;

import io.cyclium.episode.CheckpointEntity;
import io.cyclium.episode.EpisodeEntity;
import io.cyclium.episode.EpisodeFinished;
import io.cyclium.episode.EpisodeStatus;
import io.cyclium.episode.EpisodeStepEntity;
import io.cyclium.episode.EpisodeStore;
import io.cyclium.episode.StepKind;
import io.cyclium.episode.TriggerInfo;
import io.cyclium.episode.WaitStore;
import io.cyclium.execution.RunControl;
import io.cyclium.keys.EpisodeClaimKey;

import io.cyclium.actor.ActorDefinition;
import io.cyclium.runtime.ActorHost;
import io.cyclium.runtime.ActorRuntime;
import io.cyclium.keys.DedupeKeys;
import io.cyclium.actor.ExpectationDefinition;
import io.cyclium.runtime.FireRequest;
import io.cyclium.runtime.FireResult;
import io.cyclium.claims.ClaimQueries;
import io.cyclium.config.CycliumConfig;
import io.cyclium.finding.FindingQueries;
import io.cyclium.finding.FindingView;
import io.cyclium.node.NodeIdentity;
import io.cyclium.output.OutputQueries;
import io.cyclium.output.OutputView;
import io.cyclium.problem.Problem;
import io.cyclium.retry.EpisodeRetryQueries;
import io.cyclium.store.JsonText;
import io.cyclium.store.Tx;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.inject.Inject;
import jakarta.json.JsonObject;
import jakarta.persistence.EntityManager;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What operators and host code do to episodes: start one by hand, cancel, approve or deny a plan,
 * read one with its journal, list them. Returns views; failures are {@link Problem}s.
 */
@ApplicationScoped
public class EpisodeService {

    private static final java.util.logging.Logger LOG = java.util.logging.Logger.getLogger(EpisodeService.class.getName());

    private static final Pattern ID = Pattern.compile("[0-9a-fA-F-]{36}");

    @Inject
    ActorHost host;

    @Inject
    Tx tx;

    @Inject
    CycliumConfig config;

    @Inject
    NodeIdentity identity;


    @Inject
    Event<EpisodeFinished> finished;

    @Inject
    DatabaseVendor vendor;

    private EpisodeStore store() {
        return host.store();
    }

    /** Starts an episode by hand. With an idempotency key, a second start with the same key is a duplicate. */
    public FireResult startManual(String actorId, String expectationId, JsonObject payload, String idempotencyKey) {
        return startManual(actorId, expectationId, payload, idempotencyKey, null);
    }

    /**
     * Starts an episode by hand, optionally stamped for another stack/env than this node's (a
     * per-call override: seed another world from any node; it runs here).
     */
    public FireResult startManual(String actorId, String expectationId, JsonObject payload, String idempotencyKey,
            ActorRuntime.Scope scope) {
        return startManual(actorId, expectationId, payload, idempotencyKey, scope, null);
    }

    /**
     * {@link #startManual(String, String, JsonObject, String, ActorRuntime.Scope)} at {@code priority}
     * (null: the expectation's), its place among queued work of its actor.
     */
    public FireResult startManual(String actorId, String expectationId, JsonObject payload, String idempotencyKey,
            ActorRuntime.Scope scope, Integer priority) {
        if (actorId == null || actorId.isBlank()) {
            throw Problem.invalid("actor", "actor is required");
        }
        if (expectationId == null || expectationId.isBlank()) {
            throw Problem.invalid("expectation", "expectation is required");
        }
        ActorDefinition def = host.definition(actorId)
                .orElseThrow(() -> Problem.invalid("actor", "no actor \"" + actorId + "\" is deployed"));
        ExpectationDefinition exp = def.expectation(expectationId)
                .orElseThrow(() -> Problem.invalid("expectation", "actor \"" + actorId + "\" has no expectation \""
                        + expectationId + "\""));
        if (!exp.manual()) {
            throw Problem.conflict(exp.qualifiedId() + " does not allow manual starts");
        }
        ActorRuntime rt = host.runtime(actorId).orElseThrow(() -> Problem.conflict("actor \"" + actorId
                + "\" does not run on this node: " + host.notRunning().getOrDefault(actorId, "not started")));
        String env = scope == null ? config.env() : scope.env();
        String key = null;
        if (idempotencyKey != null && !idempotencyKey.isBlank()) {
            key = DedupeKeys.withEnv(DedupeKeys.manual(actorId, expectationId, idempotencyKey), env);
        }
        TriggerInfo trigger = new TriggerInfo(TriggerInfo.MANUAL, null, idempotencyKey, payload, null);
        if (host.draining()) {
            throw Problem.unavailable("node " + identity.name() + " is shutting down and takes no new episodes; nothing was"
                    + " stored: start it on another node");
        }
        FireResult result;
        FireRequest request = FireRequest.of(exp, trigger, key, true).in(scope).atPriority(priority);
        try {
            // The insert joins this transaction (the runtime's outbox path, Tx#inCallerTransaction),
            // so an operator's audit row commits with the episode it started; the episode runs once
            // this commits.
            result = tx.inNewTransaction(em -> {
                FireResult r = rt.fire(request);
                PendingAudit.detail(r.kind().name().toLowerCase(java.util.Locale.ROOT));
                if (r.episodeId() != null) {
                    PendingAudit.subject(r.episodeId());
                }
                if (stored(r)) {
                    PendingAudit.recordIn(em);
                } else if (r.kind() != FireResult.Kind.DUPLICATE) {
                    PendingAudit.refuse("not stored: " + r.kind().name().toLowerCase(java.util.Locale.ROOT));
                }
                return r;
            });
        } catch (Problem p) {
            throw p;
        } catch (RuntimeException e) {
            String id = java.util.UUID.randomUUID().toString();
            LOG.log(java.util.logging.Level.WARNING, "Manual start of " + exp.qualifiedId() + " could not be stored (error "
                    + id + ")", e);
            throw Problem.unavailable("the episode could not be stored (the database refused it; server log error " + id
                    + "); nothing was started: try again");
        }
        if (result.kind() == FireResult.Kind.NOT_ACCEPTING && host.draining()) {
            throw Problem.unavailable("node " + identity.name() + " is shutting down and takes no new episodes; nothing was"
                    + " stored: start it on another node");
        }
        return result;
    }

    private static boolean stored(FireResult r) {
        return r.kind() == FireResult.Kind.STARTED || r.kind() == FireResult.Kind.QUEUED || r.kind() == FireResult.Kind.DEFERRED;
    }

    public EpisodeDetail detail(String episodeId) {
        String id = checkId(episodeId);
        return tx.inNewTransaction(em -> {
            EpisodeEntity e = em.find(EpisodeEntity.class, id);
            if (e == null) {
                throw Problem.notFound("no episode " + id);
            }
            List<StepView> steps = em.createQuery("SELECT s FROM EpisodeStepEntity s WHERE s.episodeId = :id ORDER BY s.stepNo",
                    EpisodeStepEntity.class).setParameter("id", id).setMaxResults(2_000).getResultList().stream()
                    .map(StepView::of).toList();
            List<CheckpointView> cps = em.createQuery("SELECT c FROM CheckpointEntity c WHERE c.episodeId = :id"
                    + " ORDER BY c.checkpointNo", CheckpointEntity.class).setParameter("id", id).getResultList().stream()
                    .map(CheckpointView::of).toList();
            List<OutputView> outputs = new OutputQueries().forEpisode(em, id);
            List<FindingView> findings = new FindingQueries(vendor).touchedBy(em, id);
            ClaimQueries.ClaimRow claim = new ClaimQueries(vendor).find(em, EpisodeClaimKey.of(e.dedupeKey, e.id))
                    .orElse(null);
            EpisodeRetryQueries.RetryState retry = new EpisodeRetryQueries().state(em, id);
            WaitStore waitRows = new WaitStore(vendor);
            EpisodeDetail.WaitView waiting = waitRows.find(em, id).map(w -> new EpisodeDetail.WaitView(w.kind(), w.name(), w.key(),
                    utc(w.wakeAt()), utc(w.since()))).orElse(null);
            List<EpisodeDetail.KeptSignalView> kept = waitRows.kept(em, id, 50).stream()
                    .map(k -> new EpisodeDetail.KeptSignalView(k.name(), k.payload().toString(), k.sentBy(), utc(k.sentAt())))
                    .toList();
            return new EpisodeDetail(waits().views(em, List.of(e)).get(0), e.triggerRef, e.cancelRequested, steps, cps, outputs, findings, claim,
                    retry.dueAt().orElse(null), retry.retriedBy().orElse(null), waiting, kept);
        });
    }

    /** Why queued episodes wait, from the limits deployed on this node. */
    private ConcurrencyWaits waits() {
        return ConcurrencyWaits.deployedOn(vendor, host);
    }

    /** Newest first, at most {@link EpisodeListing#MAX_PAGE}; every filter is optional; the status must be a known one. */
    public List<EpisodeView> list(String actorId, String expectationId, String status, int limit) {
        return page(new EpisodeFilter(actorId, expectationId, status, null, null, null, null), null, limit).episodes();
    }

    /**
     * One page of the newest-first list after {@code cursor} (a {@link EpisodePage#nextCursor()};
     * null or blank: the first page). {@code limit} is capped at {@link EpisodeListing#MAX_PAGE};
     * below 1 it is a 400 naming {@code limit}.
     */
    public EpisodePage page(EpisodeFilter filter, String cursor, int limit) {
        if (limit < 1) {
            throw Problem.invalid("limit", "limit must be at least 1, was " + limit);
        }
        EpisodeCursor after = EpisodeCursor.decode(cursor);
        EpisodeListing listing = new EpisodeListing(vendor, waits());
        return tx.inNewTransaction(em -> listing.page(em, filter, after, limit));
    }

    /**
     * Cancels: a blocked or locally queued episode at once; a running one at its next step
     * boundary (the flag is stored, and a task on this node is told directly).
     */
    public EpisodeView cancel(String episodeId) {
        String id = checkId(episodeId);
        EpisodeEntity row = tx.inNewTransaction(em -> store().find(em, id))
                .orElseThrow(() -> Problem.notFound("no episode " + id));
        EpisodeStatus status = EpisodeStatus.parse(row.status).orElse(EpisodeStatus.FAILED);
        if (status.terminal()) {
            throw Problem.conflict("episode " + id + " is already " + row.status);
        }
        if (status == EpisodeStatus.BLOCKED) {
            cancelIdle(row, false);
        } else if (host.runtime(row.actorId).map(rt -> rt.dequeue(id)).orElse(false)) {
            cancelIdle(row, true);
        } else {
            tx.inNewTransaction(em -> {
                int changed = store().requestCancel(em, id);
                PendingAudit.detail("cancel requested at the next step");
                PendingAudit.recordIn(em);
                return changed;
            });
            host.localControl(id).ifPresent(RunControl::requestCancel);
        }
        return tx.inNewTransaction(em -> EpisodeView.of(em.find(EpisodeEntity.class, id)));
    }

    /**
     * Restarts a failed or canceled episode from its latest checkpoint (an operator who fixed what
     * made it fail). The row is reopened in place — it still holds its dedupe key, so a new episode
     * for the same trigger would only be a duplicate. Runs here at once when this node runs the
     * actor (deferred in trigger-only mode), else the next sweep of a node that does picks it up.
     */
    public EpisodeView restart(String episodeId, String by) {
        String id = checkId(episodeId);
        EpisodeEntity row = tx.inNewTransaction(em -> {
            EpisodeEntity e = em.find(EpisodeEntity.class, id);
            if (e == null) {
                throw Problem.notFound("no episode " + id);
            }
            EpisodeStatus from = EpisodeStatus.parse(e.status)
                    .filter(st -> st == EpisodeStatus.FAILED || st == EpisodeStatus.CANCELED)
                    .orElseThrow(() -> Problem.conflict("episode " + id + " is " + e.status
                            + ": only a failed or canceled episode can be restarted"));
            if (e.archivedAt != null) {
                throw Problem.conflict("episode " + id + " is archived and cannot be restarted");
            }
            if (e.workflowInstanceId != null && e.workflowStepId != null) {
                // its workflow owns what happens after a step fails: a restart here would run the
                // step beside the instance's own retries and never advance the instance
                throw Problem.conflict("episode " + id + " runs step " + e.workflowStepId + " of workflow instance "
                        + e.workflowInstanceId + ": retry the step instead (POST /api/workflow-instances/"
                        + e.workflowInstanceId + "/steps/" + e.workflowStepId + "/retry)");
            }
            EpisodeRetryQueries.RetryState retry = new EpisodeRetryQueries().state(em, id);
            if (retry.claimed()) {
                throw Problem.conflict("episode " + id + " is being retried by a node's retry timer right now; read it again");
            }
            if (retry.retriedBy().isPresent()) {
                throw Problem.conflict("episode " + id + " was already retried as episode " + retry.retriedBy().get()
                        + "; restart that one if it failed");
            }
            JsonObject marker = Jsons.object()
                    .add("by", by == null || by.isBlank() ? "unknown" : by)
                    .add("previousStatus", from.wire())
                    .add("previousError", e.errorClass == null ? "" : e.errorClass)
                    .build();
            if (store().restart(em, id, from) == 0) {
                throw Problem.conflict("episode " + id + " changed while restarting; read it again");
            }
            store().journal(em, id, store().nextStepNo(em, id), StepKind.RESTARTED, identity.name(), marker, null, null, null);
            PendingAudit.detail("from " + from.wire());
            PendingAudit.recordIn(em);
            return e;
        });
        host.runtime(row.actorId).ifPresent(rt -> rt.resume(id, row.expectationId));
        return tx.inNewTransaction(em -> EpisodeView.of(em.find(EpisodeEntity.class, id)));
    }

    private void cancelIdle(EpisodeEntity row, boolean queuedOnly) {
        boolean canceled = tx.inNewTransaction(em -> {
            if (!queuedOnly) {
                // a sleeping or waiting episode: its wait row goes first (the resolvers' lock order),
                // so no timer wakes it and no signal resolves it once it is canceled
                new WaitStore(vendor).release(em, row.id);
            }
            if (store().cancelIdle(em, row.id, queuedOnly) == 0) {
                return false;
            }
            store().journal(em, row.id, store().nextStepNo(em, row.id), StepKind.EPISODE_FAILED, identity.name(),
                    Jsons.object().add("errorClass", "canceled").add("reason", "operator").build(),
                    "canceled", null, null);
            PendingAudit.recordIn(em);
            return true;
        });
        if (!canceled) {
            throw Problem.conflict("episode " + row.id + " changed while canceling; read it again");
        }
        finished.fire(new EpisodeFinished(row.id, row.actorId, row.expectationId, "canceled", "canceled",
                row.workflowInstanceId, row.workflowStepId));
    }

    /** Approves the plan a blocked episode shows; {@code planHash} must be the hash of that plan. */
    public EpisodeView approve(String episodeId, String planHash) {
        return resolveApproval(episodeId, planHash, true);
    }

    /** Denies the plan: the episode ends canceled. */
    public EpisodeView deny(String episodeId, String planHash) {
        return resolveApproval(episodeId, planHash, false);
    }

    private EpisodeView resolveApproval(String episodeId, String planHash, boolean approved) {
        String id = checkId(episodeId);
        if (planHash == null || planHash.isBlank()) {
            throw Problem.invalid("planHash", "planHash is required: the hash of the plan being " + (approved ? "approved" : "denied"));
        }
        EpisodeEntity row = tx.inNewTransaction(em -> {
            EpisodeEntity e = em.find(EpisodeEntity.class, id);
            if (e == null) {
                throw Problem.notFound("no episode " + id);
            }
            if (!EpisodeStatus.BLOCKED.wire().equals(e.status)) {
                throw Problem.conflict("episode " + id + " is " + e.status + ", not blocked on an approval");
            }
            Optional<EpisodeStepEntity> request = latestApprovalRequest(em, id);
            if (request.isEmpty()) {
                throw Problem.conflict("episode " + id + " is blocked, but not on an approval");
            }
            String expected = JsonText.parseObject(request.get().detail).getString("planHash", "");
            if (!expected.equals(planHash.trim())) {
                throw Problem.conflict("planHash does not match the plan awaiting approval (expected " + expected + ")");
            }
            if (store().unblock(em, id, approved ? EpisodeStatus.RUNNING : EpisodeStatus.CANCELED,
                    approved ? resumedBy(e.actorId) : null) == 0) {
                throw Problem.conflict("episode " + id + " was resolved by someone else");
            }
            store().journal(em, id, store().nextStepNo(em, id), StepKind.APPROVAL_RESOLVED, identity.name(),
                    Jsons.object().add("approved", approved).add("planHash", planHash.trim()).build(),
                    null, null, null);
            PendingAudit.detail("plan " + planHash.trim());
            PendingAudit.recordIn(em);
            return e;
        });
        if (approved) {
            host.runtime(row.actorId).ifPresent(rt -> rt.resume(id, row.expectationId));
        } else {
            finished.fire(new EpisodeFinished(id, row.actorId, row.expectationId, "canceled", "denied",
                    row.workflowInstanceId, row.workflowStepId));
        }
        return tx.inNewTransaction(em -> EpisodeView.of(em.find(EpisodeEntity.class, id)));
    }

    /**
     * Resolves the wait a blocked episode is in: {@code reference} must be the one it waits for;
     * {@code value} is handed to the strategy when it resumes.
     */
    public EpisodeView resolveWait(String episodeId, String reference, jakarta.json.JsonValue value) {
        String id = checkId(episodeId);
        if (reference == null || reference.isBlank()) {
            throw Problem.invalid("reference", "reference is required: what the episode waits for");
        }
        EpisodeEntity row = tx.inNewTransaction(em -> {
            EpisodeEntity e = em.find(EpisodeEntity.class, id);
            if (e == null) {
                throw Problem.notFound("no episode " + id);
            }
            if (!EpisodeStatus.BLOCKED.wire().equals(e.status)) {
                throw Problem.conflict("episode " + id + " is " + e.status + ", not waiting");
            }
            Optional<EpisodeStepEntity> waiting = em.createQuery("SELECT s FROM EpisodeStepEntity s WHERE s.episodeId = :id"
                            + " AND s.kind IN :kinds ORDER BY s.stepNo DESC", EpisodeStepEntity.class)
                    .setParameter("id", id).setParameter("kinds", List.of(StepKind.WAIT_STARTED, StepKind.APPROVAL_REQUESTED))
                    .setMaxResults(1).getResultList().stream().findFirst();
            if (waiting.isEmpty() || !StepKind.WAIT_STARTED.equals(waiting.get().kind)) {
                throw Problem.conflict("episode " + id + " is blocked, but not on a wait");
            }
            String expected = JsonText.parseObject(waiting.get().detail).getString("reference", "");
            if (!expected.equals(reference)) {
                throw Problem.conflict("episode " + id + " waits for \"" + expected + "\", not \"" + reference + "\"");
            }
            // the wait row first (the lock order of every resolver: wait row, episode row, journal);
            // an episode blocked before waits had rows has none, and its status guard decides alone
            new WaitStore(vendor).release(em, id);
            if (store().unblock(em, id, EpisodeStatus.RUNNING, resumedBy(e.actorId)) == 0) {
                throw Problem.conflict("episode " + id + " was resolved by someone else");
            }
            store().journal(em, id, store().nextStepNo(em, id), StepKind.WAIT_RESOLVED, identity.name(),
                    Jsons.object().add("reference", reference)
                            .add("value", value == null ? jakarta.json.JsonValue.NULL : value).build(), null, null, null);
            PendingAudit.detail("reference " + reference);
            PendingAudit.recordIn(em);
            return e;
        });
        host.runtime(row.actorId).ifPresent(rt -> rt.resume(id, row.expectationId));
        return tx.inNewTransaction(em -> EpisodeView.of(em.find(EpisodeEntity.class, id)));
    }

    /**
     * The node that will resume an unblocked episode: this one when its actor runs here, else none —
     * and then the next sweep of a node that runs it resumes it at once (phase resume due, no run
     * node). Naming this node without running the actor here would leave the row looking taken until
     * it went stale, and then the sweep would apply the policy of a crash to it.
     */
    private String resumedBy(String actorId) {
        return host.runtime(actorId).isPresent() ? identity.name() : null;
    }

    private static Optional<EpisodeStepEntity> latestApprovalRequest(EntityManager em, String id) {
        return em.createQuery("SELECT s FROM EpisodeStepEntity s WHERE s.episodeId = :id AND s.kind = :kind"
                        + " ORDER BY s.stepNo DESC", EpisodeStepEntity.class)
                .setParameter("id", id).setParameter("kind", StepKind.APPROVAL_REQUESTED)
                .setMaxResults(1).getResultList().stream().findFirst();
    }

    private static java.time.LocalDateTime utc(java.time.Instant t) {
        return t == null ? null : java.time.LocalDateTime.ofInstant(t, java.time.ZoneOffset.UTC);
    }

    static String checkId(String episodeId) {
        if (episodeId == null || !ID.matcher(episodeId).matches()) {
            throw Problem.notFound("no episode " + (episodeId == null ? "" : episodeId.length() > 64
                    ? episodeId.substring(0, 64) + "…" : episodeId));
        }
        return episodeId;
    }
}
