package io.cyclium.console;

import io.cyclium.audit.AuditAction;
import io.cyclium.store.JsonText;
import io.cyclium.operations.EpisodeDetail;
import io.cyclium.operations.EpisodeService;
import io.cyclium.operations.Signals;
import io.cyclium.episode.StepKind;
import io.cyclium.operations.StepView;
import io.cyclium.output.OutputOutcome;
import io.cyclium.output.Outputs;
import io.cyclium.problem.Problem;
import jakarta.faces.view.ViewScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import jakarta.json.JsonObject;
import java.io.Serializable;
import java.util.Optional;

/**
 * Backs episode.xhtml: one episode with its journal (as a timeline and a table), checkpoints,
 * outputs and findings, and the admin's actions on it. Every action is gated by
 * {@link ConsoleUser#act} on the server. Opened by URL ({@code episode.xhtml?id=…}), so a link
 * to an episode can be shared; re-read when a change to it is pushed.
 */
@Named("episodePage")
@ViewScoped
public class EpisodePage implements Serializable {

    private static final long serialVersionUID = 1L;

    @Inject
    EpisodeService episodes;

    @Inject
    Outputs outputs;

    @Inject
    ConsoleUser user;

    @Inject
    ConsoleClock clock;

    @Inject
    Signals signals;

    private String signalName;
    private String signalPayload;

    private String id;
    // views are not Serializable: reloaded per request when the view is restored
    private transient EpisodeDetail detail;
    private transient Timeline timeline;
    private transient EpisodeDetail timelineOf;
    private String missing;

    /** The plan awaiting approval and its hash, as the latest approval_requested step recorded them. */
    public record PendingPlan(String plan, String planHash) implements Serializable {
    }

    public void load() {
        detail = null;
        missing = null;
        if (id == null || id.isBlank()) {
            missing = "No episode id given.";
            return;
        }
        try {
            detail = episodes.detail(id);
        } catch (Problem p) {
            missing = p.getMessage();
        }
    }

    public PendingPlan getPendingPlan() {
        EpisodeDetail detail = getDetail();
        if (detail == null || !"blocked".equals(detail.episode().status())) {
            return null;
        }
        Optional<StepView> request = detail.steps().stream()
                .filter(s -> StepKind.APPROVAL_REQUESTED.equals(s.kind())).reduce((a, b) -> b);
        if (request.isEmpty() || request.get().detail() == null) {
            return null;
        }
        JsonObject o = JsonText.parseObject(request.get().detail());
        String plan = o.containsKey("plan") ? JsonText.write(o.get("plan")) : request.get().detail();
        return new PendingPlan(plan, o.getString("planHash", ""));
    }

    public boolean isCancellable() {
        EpisodeDetail detail = getDetail();
        return detail != null && !java.util.Set.of("done", "partially_failed", "failed", "canceled")
                .contains(detail.episode().status());
    }

    public boolean isRestartable() {
        EpisodeDetail detail = getDetail();
        return detail != null && java.util.Set.of("failed", "canceled").contains(detail.episode().status());
    }

    public void restart() {
        act("restart episode", AuditAction.EPISODE_RESTART, () -> episodes.restart(id, user.getName()),
                "Restarted; it resumes from its latest checkpoint.");
    }

    public void cancel() {
        act("cancel episode", AuditAction.EPISODE_CANCEL, () -> episodes.cancel(id), "Cancel requested.");
    }

    public void approve() {
        PendingPlan plan = getPendingPlan();
        if (plan != null) {
            act("approve plan", AuditAction.EPISODE_APPROVE, () -> episodes.approve(id, plan.planHash()),
                    "Plan approved; the episode resumes from its checkpoint.");
        }
    }

    public void deny() {
        PendingPlan plan = getPendingPlan();
        if (plan != null) {
            act("deny plan", AuditAction.EPISODE_DENY, () -> episodes.deny(id, plan.planHash()), "Plan denied; the episode is canceled.");
        }
    }

    /** The name the form proposes: what the episode waits for now, else what was typed. */
    public String getSignalName() {
        if (signalName == null) {
            EpisodeDetail d = getDetail();
            if (d != null && d.waiting() != null && !"sleep".equals(d.waiting().kind())) {
                return d.waiting().name();
            }
        }
        return signalName;
    }

    public void setSignalName(String signalName) {
        this.signalName = signalName;
    }

    public String getSignalPayload() {
        return signalPayload;
    }

    public void setSignalPayload(String signalPayload) {
        this.signalPayload = signalPayload;
    }

    /** Sends the form's signal: delivered to the waiting episode, or kept until it waits for the name. */
    public void sendSignal() {
        String name = signalName;
        String text = signalPayload;
        Signals.SignalOutcome outcome = user.act("send signal", AuditAction.EPISODE_SIGNAL, id, () -> {
            jakarta.json.JsonValue payload;
            try {
                payload = text == null || text.isBlank() ? jakarta.json.JsonValue.NULL : JsonText.parse(text);
            } catch (RuntimeException e) {
                throw Problem.invalid("payload", "the payload is not valid JSON: " + e.getMessage());
            }
            return signals.signalEpisode(id, name, payload, user.getName());
        });
        if (outcome != null) {
            ConsoleMessages.info(outcome.delivered() ? "Signal " + name + " delivered; the episode resumes."
                    : "Signal " + name + " kept: the episode gets it when it waits for " + name + ".");
            signalPayload = null;
        }
        load();
    }

    public void retry(String outputId) {
        OutputOutcome outcome = user.act("retry output", AuditAction.OUTPUT_RETRY, outputId, () -> {
            try {
                return outputs.retry(outputId);
            } catch (RuntimeException e) {
                Throwable cause = e instanceof jakarta.ejb.EJBException && e.getCause() != null ? e.getCause() : e;
                if (cause instanceof io.cyclium.output.OutputRetryRefusedException
                        || cause instanceof io.cyclium.output.UnknownOutputException) {
                    throw Problem.conflict(cause.getMessage());
                }
                throw e;
            }
        });
        if (outcome != null) {
            ConsoleMessages.info("Output retried.");
        }
        load();
    }

    private void act(String what, AuditAction audited, java.util.function.Supplier<?> action, String done) {
        if (user.act(what, audited, id, action) != null) {
            ConsoleMessages.info(done);
        }
        load();
    }

    public EpisodeDetail getDetail() {
        if (detail == null && missing == null) {
            load();
        }
        return detail;
    }

    /** The journal on a time axis (rebuilt whenever the episode is read again). */
    public Timeline getTimeline() {
        EpisodeDetail d = getDetail();
        if (d == null) {
            return null;
        }
        if (timeline == null || timelineOf != d) {
            timeline = EpisodeTimeline.of(d, clock.getNow());
            timelineOf = d;
        }
        return timeline;
    }

    /** The key of this episode's lease: pushed claim changes under it concern this page. */
    public String getClaimKey() {
        EpisodeDetail d = getDetail();
        return d == null ? "" : io.cyclium.keys.EpisodeClaimKey.of(d.episode().dedupeKey(), d.episode().id());
    }

    public String getMissing() {
        return missing;
    }

    public String getId() {
        return id;
    }

    public void setId(String id) {
        this.id = id;
    }
}
