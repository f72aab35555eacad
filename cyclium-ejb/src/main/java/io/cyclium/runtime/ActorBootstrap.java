package io.cyclium.runtime;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.PreDestroy;
import jakarta.ejb.DependsOn;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;

/**
 * Starts this node's actors once the schema and the node row exist, and stops their triggers when
 * the application goes down (before the drain, which depends on it).
 */
@Singleton
@Startup
@DependsOn("NodeRegistry")
@TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
public class ActorBootstrap {

    @Inject
    ActorHost host;

    @PostConstruct
    void start() {
        host.start();
    }

    @PreDestroy
    void stop() {
        host.stopTriggers();
        host.releaseThreads();
    }
}
