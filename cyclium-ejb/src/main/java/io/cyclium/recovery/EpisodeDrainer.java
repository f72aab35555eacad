package io.cyclium.recovery;

import io.cyclium.actor.ActorHost;
import io.cyclium.claims.ClaimGateProducer;
import io.cyclium.claims.LeasedClaimGate;
import io.cyclium.config.CycliumConfig;
import io.cyclium.episode.RunControl;
import io.cyclium.node.NodeIdentity;
import io.cyclium.schema.SchemaMigrator;
import io.cyclium.store.UniqueViolation;
import io.cyclium.telemetry.Telemetry;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionManagement;
import jakarta.ejb.TransactionManagementType;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Status;
import jakarta.transaction.UserTransaction;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The graceful half of "never lose work across deploys". Its {@code @PreDestroy} runs before the
 * sweep, the poller, the heartbeat and the actors are destroyed — the singletons form one chain
 * (drainer → sweep → poller → heartbeat → actors → node row → schema), because only
 * {@code @DependsOn} orders destruction reliably and Payara rejects diamond-shaped graphs as
 * cyclic — and while episode tasks still run:
 * <ol>
 * <li>stop triggers and the heartbeat's renewals, and ask every local task to stop at its next
 *     step boundary;</li>
 * <li>in one transaction of set-based statements: stamp this node's running episodes
 *     {@code phase = interrupted}, expire this node's leases, journal one {@code interrupted}
 *     marker per episode, stamp the node row stopped;</li>
 * <li>wait up to {@code cyclium.episode.shutdown-ms} for the tasks to leave. A task still running
 *     then is left: its row is stamped, so the next sweep on another node restarts it at once.</li>
 * </ol>
 * The writes use this bean's own EntityManager on the server-level pool: application-defined pools
 * and calls into other EJBs are not reliable this late in a shutdown.
 */
@Singleton
@Startup
@DependsOn("RecoverySweep")
@TransactionManagement(TransactionManagementType.BEAN)
public class EpisodeDrainer {

    private static final Logger LOG = Logger.getLogger(EpisodeDrainer.class.getName());

    @PersistenceContext(unitName = "cyclium")
    EntityManager em;

    @Resource
    UserTransaction utx;

    @Inject
    ActorHost host;

    @Inject
    ClaimGateProducer gates;

    @Inject
    CycliumConfig config;

    @Inject
    NodeIdentity identity;

    @Inject
    SchemaMigrator schema;

    @Inject
    Telemetry telemetry;

    private RecoveryStore store;
    private String node;

    @PostConstruct
    void start() {
        store = new RecoveryStore(schema.vendor());
        node = identity.name();
        // Touch the lazily created gate now: during shutdown is no time to build it.
        gates.claimGate();
    }

    @PreDestroy
    void drain() {
        long t0 = System.nanoTime();
        host.beginDrain();
        gates.leased().ifPresent(LeasedClaimGate::stopRenewing);
        List<RunControl> running = List.copyOf(host.localRunning());
        running.forEach(RunControl::requestStop);
        int stamped = -1;
        for (int attempt = 1; attempt <= 2 && stamped < 0; attempt++) {
            stamped = stampAndRelease(attempt);
        }
        long deadline = System.nanoTime() + config.shutdownGrace().toNanos();
        while (!host.localRunning().isEmpty() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        int left = host.localRunning().size();
        int late = restampLate();
        if (late > 0) {
            stamped = Math.max(stamped, 0) + late;
        }
        long ms = (System.nanoTime() - t0) / 1_000_000;
        String summary = "Cyclium drain on " + node + ": " + stamped + " episode(s) stamped interrupted, "
                + running.size() + " task(s) asked to stop, " + left + " still running after " + ms + " ms";
        LOG.info(summary);
        echoOnPayaraMicro(summary);
    }

    /**
     * Payara Micro has closed its log handlers by the time a {@code @PreDestroy} runs at SIGTERM:
     * the JUL record above is lost there, so Micro (only) also gets the line on stdout, which its
     * launcher still copies to the console. Elsewhere the JUL line is the record (INFO on Payara
     * Server and WildFly); stdout would only repeat it.
     */
    private static void echoOnPayaraMicro(String line) {
        if (ON_PAYARA_MICRO) {
            System.out.println(line);
        }
    }

    private static final boolean ON_PAYARA_MICRO = payaraMicro();

    private static boolean payaraMicro() {
        try {
            // Micro's launcher, on the system class path of `java -jar payara-micro.jar` only (Payara
            // Server also ships the fish.payara.micro API, so that package alone proves nothing).
            Class.forName("fish.payara.micro.boot.PayaraMicroLauncher", false, ClassLoader.getSystemClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /**
     * After the tasks stopped (or the grace ran out): stamps the running episodes whose own step
     * transaction committed over the set-based stamp — on H2 a step that held the row when the
     * stamp ran writes its phase afterwards. Normally one SELECT that finds nothing. One
     * transaction per episode: a task still running may take the next step number.
     */
    private int restampLate() {
        List<String> late;
        try {
            utx.begin();
            late = store.unstampedOn(em, node);
            utx.commit();
        } catch (Exception e) {
            LOG.log(Level.WARNING, "Drain on " + node + " could not look for episodes stamped too early", e);
            rollbackQuietly();
            return 0;
        }
        int n = 0;
        for (String id : late) {
            try {
                utx.begin();
                if (store.stampInterruptedOne(em, id, node) == 1) {
                    store.markInterruptedOne(em, id, node);
                    n++;
                }
                utx.commit();
            } catch (Exception e) {
                LOG.log(Level.WARNING, "Drain on " + node + " could not stamp episode " + id
                        + "; the sweep will find it once its journal goes stale", e);
                rollbackQuietly();
            }
        }
        return n;
    }

    private void rollbackQuietly() {
        try {
            if (utx.getStatus() != Status.STATUS_NO_TRANSACTION) {
                utx.rollback();
            }
        } catch (Exception ignored) {
            // nothing more to do this late
        }
    }

    /** One transaction of set-based statements; returns the number stamped, or -1 to retry. */
    private int stampAndRelease(int attempt) {
        try {
            utx.begin();
            int stamped = store.stampInterrupted(em, node);
            int released = gates.workClaims().releaseAll(em, node);
            if (stamped > 0) {
                try {
                    store.markInterrupted(em, node);
                } catch (RuntimeException e) {
                    if (!UniqueViolation.isCause(e) || attempt > 1) {
                        throw e;
                    }
                    // A task journaled the same step number this instant (PostgreSQL has aborted
                    // the transaction): roll back and do it again — the task has stopped by now.
                    utx.rollback();
                    return -1;
                }
            }
            store.nodeStopped(em, node);
            utx.commit();
            telemetry.count("drain", "stamped", String.valueOf(stamped > 0));
            return stamped;
        } catch (Exception e) {
            LOG.log(Level.SEVERE, "Drain on " + node + " could not stamp its episodes (attempt " + attempt
                    + "); the sweep will still find them once their journals go stale", e);
            echoOnPayaraMicro("Cyclium drain on " + node + " failed: " + e);
            rollbackQuietly();
            return attempt == 1 ? -1 : 0;
        }
    }
}
