package io.cyclium.console;

import io.cyclium.audit.AuditAction;
import io.cyclium.runtime.ActorHost;
import io.cyclium.runtime.ActorView;
import io.cyclium.runtime.FireResult;
import io.cyclium.config.CycliumConfig;
import io.cyclium.config.NodeMode;
import io.cyclium.operations.EpisodeService;
import io.cyclium.node.NodeModes;
import io.cyclium.problem.Problem;
import io.cyclium.recovery.RecoverySweep;
import io.cyclium.recovery.SweepReport;
import io.cyclium.recovery.SweepScope;
import io.cyclium.store.JsonText;
import jakarta.ejb.EJB;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.util.Arrays;
import java.util.List;

/**
 * Backs actors.xhtml: the actors on this node with their mode, slots, triggers and breakers, and
 * the admin's switches: node and actor mode, a manual start, a recovery sweep now.
 */
@Named("actorsPage")
@RequestScoped
public class ActorsPage {

    @Inject
    ActorHost host;

    @Inject
    NodeModes modes;

    @Inject
    EpisodeService episodes;

    @EJB
    RecoverySweep sweep;

    @Inject
    CycliumConfig config;

    @Inject
    ConsoleUser user;

    @Inject
    io.cyclium.operations.PauseCommands pauses;

    private List<ActorView> actors;
    private String only;
    private String startExpectation;
    private String startPayload = "{}";
    private String sweepStack;
    private String sweepEnv;

    public List<ActorView> getActors() {
        if (actors == null) {
            actors = only == null || only.isBlank() ? host.views()
                    : host.views().stream().filter(a -> a.id().equals(only.trim())).toList();
        }
        return actors;
    }

    /** One actor only ({@code actors.xhtml?actor=…}, a link that can be shared); all when unset. */
    public String getOnly() {
        return only;
    }

    public void setOnly(String only) {
        this.only = only;
        actors = null;
    }

    public NodeModes.Status getModes() {
        return modes.status();
    }

    public List<String> getModeNames() {
        return Arrays.stream(NodeMode.values()).map(NodeMode::wireName).toList();
    }

    /** The override for an actor on this node, or an empty string when it follows the node. */
    public String overrideOf(String actorId) {
        return modes.status().overrides().getOrDefault(actorId, "");
    }

    public void setActorMode(String actorId, String mode) {
        if (user.act("switch actor mode", AuditAction.ACTOR_MODE, actorId, () -> modes.setActorOverride(actorId, mode(mode)))) {
            ConsoleMessages.info(actorId + " is now " + mode + " on this node.");
        }
        actors = null;
    }

    public void clearActorMode(String actorId) {
        if (user.act("clear actor mode", AuditAction.ACTOR_MODE_CLEAR, actorId, () -> modes.clearActorOverride(actorId))) {
            ConsoleMessages.info(actorId + " follows the node mode again.");
        }
        actors = null;
    }

    /** Pauses or resumes the actor cluster-wide (admin; the same command as the API's). */
    public void setPaused(String actorId, boolean paused) {
        if (user.act((paused ? "pause" : "resume") + " actor " + actorId, paused ? AuditAction.ACTOR_PAUSE
                : AuditAction.ACTOR_RESUME, actorId, () -> pauses.pauseActor(actorId, paused, user.getName())) != null) {
            ConsoleMessages.info(actorId + (paused ? " paused on every node: new work is stored and waits." : " resumed: waiting work starts."));
        }
        actors = null;
    }

    /** Pauses or resumes one expectation cluster-wide. */
    public void setExpectationPaused(String actorId, String expectationId, boolean paused) {
        String target = actorId + "/" + expectationId;
        if (user.act((paused ? "pause" : "resume") + " expectation " + target, paused ? AuditAction.EXPECTATION_PAUSE
                : AuditAction.EXPECTATION_RESUME, target, () -> pauses.pauseExpectation(actorId, expectationId, paused,
                user.getName())) != null) {
            ConsoleMessages.info(target + (paused ? " paused on every node: new work is stored and waits." : " resumed: waiting work starts."));
        }
        actors = null;
    }

    public void setNodeMode(String mode) {
        if (user.act("switch node mode", AuditAction.NODE_MODE, modes.status().nodeIdentity(), () -> modes.setNodeMode(mode(mode)))) {
            ConsoleMessages.info("This node is now " + mode + ".");
        }
        actors = null;
    }

    /** {@code actorAndExpectation} is "actor/expectation", as the expectation selector offers it. */
    public void start() {
        FireResult r = user.act("start episode", AuditAction.EPISODE_START, null, () -> {
            String[] parts = startExpectation == null ? new String[0] : startExpectation.split("/", 2);
            if (parts.length != 2) {
                throw Problem.invalid("expectation", "choose an expectation to start");
            }
            JsonObject payload = payload();
            return episodes.startManual(parts[0], parts[1], payload, null);
        });
        if (r != null) {
            ConsoleMessages.info("Episode " + r.episodeId() + ": " + r.kind().name().toLowerCase(java.util.Locale.ROOT) + ".");
        }
        actors = null;
    }

    public void sweepNow() {
        String stack = blank(sweepStack) ? config.stackSlug() : "*".equals(sweepStack.trim()) ? null : sweepStack.trim();
        String env = blank(sweepEnv) ? config.env() : "-".equals(sweepEnv.trim()) ? null : sweepEnv.trim();
        SweepReport r = user.act("run recovery sweep", AuditAction.RECOVERY_SWEEP, (stack == null ? "-" : stack) + "/"
                + (env == null ? "-" : env), () -> sweep.sweep(SweepScope.of(stack, env)));
        if (r != null) {
            ConsoleMessages.info("Sweep: " + r.found() + " orphans found, " + r.restarted() + " restarted, "
                    + r.failed() + " failed, " + r.skipped() + " skipped.");
        }
    }

    /** Every expectation that may be started by hand, as "actor/expectation". */
    public List<String> getManualExpectations() {
        return getActors().stream().flatMap(a -> a.expectations().stream().filter(ActorView.ExpectationInfo::manual)
                .map(e -> a.id() + "/" + e.id())).toList();
    }

    private JsonObject payload() {
        if (blank(startPayload)) {
            return JsonValue.EMPTY_JSON_OBJECT;
        }
        try {
            return JsonText.parseObject(startPayload);
        } catch (RuntimeException e) {
            throw Problem.invalid("payload", "the payload is not a JSON object");
        }
    }

    private static NodeMode mode(String raw) {
        return NodeMode.parse(raw).orElseThrow(() -> Problem.invalid("mode", "mode \"" + raw + "\" is not one of "
                + NodeMode.allowed()));
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }

    public String getStartExpectation() {
        return startExpectation;
    }

    public void setStartExpectation(String startExpectation) {
        this.startExpectation = startExpectation;
    }

    public String getStartPayload() {
        return startPayload;
    }

    public void setStartPayload(String startPayload) {
        this.startPayload = startPayload;
    }

    public String getSweepStack() {
        return sweepStack;
    }

    public void setSweepStack(String sweepStack) {
        this.sweepStack = sweepStack;
    }

    public String getSweepEnv() {
        return sweepEnv;
    }

    public void setSweepEnv(String sweepEnv) {
        this.sweepEnv = sweepEnv;
    }
}
