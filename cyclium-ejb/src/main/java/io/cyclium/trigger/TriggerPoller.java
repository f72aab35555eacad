package io.cyclium.trigger;

import io.cyclium.config.CycliumConfig;
import io.cyclium.config.NodeMode;
import io.cyclium.episode.DebouncedTriggerStore;
import io.cyclium.episode.TriggerRequestStore;
import io.cyclium.node.NodeIdentity;
import io.cyclium.node.NodeModes;
import io.cyclium.runtime.ActorHost;
import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.Tx;
import io.cyclium.telemetry.BackgroundPass;
import io.cyclium.telemetry.Telemetry;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import java.util.logging.Logger;

/**
 * On full nodes: picks up trigger requests that trigger-only nodes wrote and runs their episodes
 * here — the timer around {@link TriggerDispatch}, which holds the logic. On every node that is
 * not disabled, the same tick fires the debounced triggers whose window has closed
 * ({@link DebounceDispatch}).
 */
@Singleton
@Startup
@DependsOn("Heartbeat")
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class TriggerPoller {

    private static final Logger LOG = Logger.getLogger(TriggerPoller.class.getName());

    @Inject
    CycliumConfig config;

    @Inject
    NodeIdentity identity;

    @Inject
    NodeModes modes;

    @Inject
    Tx tx;

    @Inject
    DatabaseVendor vendor;

    @Inject
    ActorHost host;

    @Inject
    Telemetry telemetry;

    @Resource
    TimerService timers;

    private TriggerDispatch dispatch;
    private DebounceDispatch debounces;

    @PostConstruct
    void start() {
        DispatchTarget actors = new DispatchTarget() {
            @Override
            public boolean runsHere(String actorId) {
                return host.runtime(actorId).isPresent() && modes.modeFor(actorId) == NodeMode.FULL;
            }

            @Override
            public boolean dispatch(String actorId, String episodeId, boolean resume) {
                return host.dispatch(actorId, null, episodeId, resume);
            }

            @Override
            public boolean dispatch(String actorId, String expectationId, String episodeId, boolean resume) {
                return host.dispatch(actorId, expectationId, episodeId, resume);
            }
        };
        dispatch = new TriggerDispatch(config, identity.name(), tx, new TriggerRequestStore(vendor), actors, telemetry);
        debounces = new DebounceDispatch(identity.name(), config.env(), config.triggerPollBatchSize(), tx,
                new DebouncedTriggerStore(vendor), () -> host.runtimes().stream()
                        .filter(rt -> modes.modeFor(rt.definition().id()) != NodeMode.DISABLED)
                        .collect(java.util.stream.Collectors.toMap(rt -> rt.definition().id(), rt -> rt)), telemetry);
        long interval = config.triggerPollInterval().toMillis();
        timers.createIntervalTimer(interval, interval, new TimerConfig("cyclium-trigger-poll", false));
    }

    @Timeout
    void onTimer() {
        if (modes.nodeMode() == NodeMode.DISABLED || host.draining()) {
            return;
        }
        BackgroundPass.run("debounce_poll", LOG, telemetry, () -> "Debounce pass on " + identity.name()
                + " failed; the next one runs in " + config.triggerPollInterval().toMillis() + " ms", debounces::poll);
        if (modes.nodeMode() != NodeMode.FULL) {
            return;
        }
        BackgroundPass.run("trigger_poll", LOG, telemetry, () -> "Trigger poll on " + identity.name()
                + " failed; the next one runs in " + config.triggerPollInterval().toMillis() + " ms", this::poll);
    }

    /** One poll: dispatch what this node can run, then expire the old. Returns the number dispatched. */
    public int poll() {
        return dispatch.poll();
    }

    /** One debounce pass: fire the due debounced triggers of actors that fire here. Returns the number fired. */
    public int fireDueDebounces() {
        return debounces.poll();
    }
}
