package io.cyclium.recovery;

import io.cyclium.claims.ClaimGateProducer;
import io.cyclium.config.CycliumConfig;
import io.cyclium.node.NodeIdentity;
import io.cyclium.store.DatabaseVendor;
import io.cyclium.store.Tx;
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
import java.util.function.Function;
import java.util.logging.Logger;

/**
 * The graceful half of "never lose work across deploys": runs {@link NodeDrain} from its
 * {@code @PreDestroy}, which runs before the sweep, the poller, the heartbeat and the actors are
 * destroyed — the singletons form one chain (drainer → sweep → poller → heartbeat → actors → node
 * row → schema), because only {@code @DependsOn} orders destruction reliably and Payara rejects
 * diamond-shaped graphs as cyclic — and while episode tasks still run.
 *
 * <p>The writes use this bean's own EntityManager and bean-managed transaction on the server-level
 * pool: application-defined pools and calls into other EJBs are not reliable this late in a shutdown.
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
    LocalActors actors;

    @Inject
    ClaimGateProducer gates;

    @Inject
    CycliumConfig config;

    @Inject
    NodeIdentity identity;

    @Inject
    DatabaseVendor vendor;

    @Inject
    Telemetry telemetry;

    private NodeDrain drain;
    private String node;

    @PostConstruct
    void start() {
        // Built now, the lazily created gate included: during shutdown is no time to build it.
        gates.claimGate();
        node = identity.name();
        drain = new NodeDrain(node, new OwnTransaction(), new RecoveryStore(vendor), gates.workClaims(),
                gates.leased(), actors, config.shutdownGrace(), telemetry);
    }

    @PreDestroy
    void drain() {
        NodeDrain.Report r = drain.drain();
        // Payara Micro drops log output this late; the rows are the record. stderr may survive.
        String summary = "Cyclium drain on " + node + ": " + r.stamped() + " episode(s) stamped interrupted, "
                + r.askedToStop() + " task(s) asked to stop, " + r.stillRunning() + " still running after " + r.millis() + " ms";
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

    /** {@link Tx} over this bean's EntityManager and UserTransaction: commit on return, roll back on any failure. */
    private final class OwnTransaction implements Tx {

        @Override
        public <T> T inNewTransaction(Function<EntityManager, T> work) {
            try {
                utx.begin();
                T result = work.apply(em);
                utx.commit();
                return result;
            } catch (Exception e) {
                try {
                    if (utx.getStatus() != Status.STATUS_NO_TRANSACTION) {
                        utx.rollback();
                    }
                } catch (Exception ignored) {
                    // nothing more to do this late
                }
                throw e instanceof RuntimeException re ? re : new IllegalStateException(e);
            }
        }
    }
}
