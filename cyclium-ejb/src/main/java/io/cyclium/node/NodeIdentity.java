package io.cyclium.node;

import io.cyclium.config.CycliumConfig;
import io.cyclium.config.CycliumConfigReader;
import io.cyclium.config.InvalidConfigurationException;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The name this node writes into every ownership column (claims, heartbeats, trigger requests,
 * journal rows). Host names and server instance names are never used: containers often boot with
 * identical ones, and two owners that look the same cannot hold separate leases.
 *
 * <p>Resolution: {@code cyclium.node-identity}, else a host {@link NodeIdentityProvider} bean, else
 * an identity minted once per JVM. The minted one lives in a system property so it survives
 * redeploys inside the same JVM and changes only when the process does.
 */
@ApplicationScoped
public class NodeIdentity {

    static final String MINTED_PROPERTY = "io.cyclium.minted-node-identity";

    @Inject
    CycliumConfig config;

    @Inject
    Instance<NodeIdentityProvider> providers;

    private String name;

    @PostConstruct
    void resolve() {
        this.name = resolve(config, providers.isResolvable() ? providers.get() : null);
    }

    static String resolve(CycliumConfig config, NodeIdentityProvider provider) {
        if (config.nodeIdentity().isPresent()) {
            return config.nodeIdentity().get();
        }
        if (provider != null) {
            String supplied = provider.nodeIdentity();
            String origin = "NodeIdentityProvider " + provider.getClass().getName();
            CycliumConfigReader.identityProblem(origin, supplied).ifPresent(p -> {
                throw new InvalidConfigurationException(List.of(p));
            });
            return supplied;
        }
        return mintedForThisJvm();
    }

    static String mintedForThisJvm() {
        synchronized (System.getProperties()) {
            String existing = System.getProperty(MINTED_PROPERTY);
            if (existing != null) {
                return existing;
            }
            byte[] random = new byte[4];
            ThreadLocalRandom.current().nextBytes(random);
            String minted = "node-" + ProcessHandle.current().pid() + "-" + HexFormat.of().formatHex(random);
            System.setProperty(MINTED_PROPERTY, minted);
            return minted;
        }
    }

    public String name() {
        return name;
    }

    @Override
    public String toString() {
        return name;
    }
}
