package io.cyclium.demo;

import io.cyclium.store.Jsons;
import io.cyclium.telemetry.BackgroundPass;

import io.cyclium.runtime.ActorHost;
import io.cyclium.actor.CycliumEvent;
import io.cyclium.config.CycliumConfig;
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
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * With {@code cyclium.demo.enabled=true}: seeds four resources and, every 20 seconds, moves one
 * resource's usage and publishes {@code resource.updated}, so the quick start has live episodes,
 * findings and approvals to show.
 */
@Singleton
@Startup
@DependsOn("EpisodeDrainer")
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class DemoLoad {

    private static final Logger LOG = Logger.getLogger(DemoLoad.class.getName());
    static final List<String[]> SEED = List.of(
            new String[] {"db-primary", "cpu", "55", "80"},
            new String[] {"api-gateway", "memory", "40", "70"},
            new String[] {"batch-worker", "cpu", "92", "85"},
            new String[] {"cache", "memory", "30", "60"});

    @Inject
    CycliumConfig config;

    @Inject
    DemoResources resources;

    @Inject
    ActorHost host;

    @Inject
    Telemetry telemetry;

    @Resource
    TimerService timers;

    @PostConstruct
    void start() {
        if (!config.demoEnabled()) {
            return;
        }
        try {
            for (String[] r : SEED) {
                resources.seed(r[0], r[1], Integer.parseInt(r[2]), Integer.parseInt(r[3]));
            }
        } catch (RuntimeException e) {
            // The demo must never take the node down: without seeds the monitor just sees nothing.
            LOG.log(Level.WARNING, "Seeding the demo resources failed; the demo load runs with whatever exists", e);
        }
        timers.createIntervalTimer(5_000, 20_000, new TimerConfig("cyclium-demo-load", false));
    }

    @Timeout
    void tick() {
        BackgroundPass.run("demo_load", LOG, telemetry, () -> "Demo load tick failed; the next tick runs as usual", () -> {
            List<DemoResources.Resource> all = resources.all();
            if (all.isEmpty()) {
                return;
            }
            DemoResources.Resource r = all.get(ThreadLocalRandom.current().nextInt(all.size()));
            int usage = Math.max(5, Math.min(150, r.usage() + ThreadLocalRandom.current().nextInt(-25, 26)));
            long version = resources.setUsage(r.id(), usage);
            host.publish(new CycliumEvent("resource.updated", r.id() + ":v" + version, Jsons.object()
                    .add("resource", r.id()).add("kind", r.kind()).add("usage", usage).add("limit", r.limit()).build()));
        });
    }
}
