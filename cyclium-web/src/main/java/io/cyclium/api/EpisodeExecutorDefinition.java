package io.cyclium.api;

import io.cyclium.runtime.ActorHost;
import jakarta.enterprise.concurrent.ContextServiceDefinition;
import jakarta.enterprise.concurrent.ManagedExecutorDefinition;
import jakarta.servlet.ServletContextListener;
import jakarta.servlet.annotation.WebListener;

/**
 * Defines the ManagedExecutorService episode tasks run on with {@code cyclium.episode.executor=managed}
 * (the node looks it up by {@link ActorHost#EPISODE_EXECUTOR}). Only the application's context
 * (class loader, naming) goes with a task; the submitter's transaction, security and everything
 * else the container knows are cleared, not captured: an episode starts its own transactions and
 * runs for nobody in particular, and capturing a trigger's context on every submission is what
 * made the server's default executor cost most of a node's CPU.
 *
 * <p>{@code maxAsync} is required in practice: without it Payara's executor started a new thread
 * for every task and kept it (tens of thousands in a benchmark, then no native thread could be
 * made). With it the container keeps at most that many; Cyclium's bound
 * ({@code cyclium.episode.executor-threads}, which may not exceed it in this mode) decides how
 * many run at once.
 *
 * <p>On a web component because Payara reads these definitions from web components and not from
 * an EJB's class; the name is the application's, so the EJB module finds it too.
 */
@ContextServiceDefinition(name = ActorHost.EPISODE_CONTEXT,
        propagated = ContextServiceDefinition.APPLICATION,
        cleared = ContextServiceDefinition.ALL_REMAINING)
@ManagedExecutorDefinition(name = ActorHost.EPISODE_EXECUTOR, context = ActorHost.EPISODE_CONTEXT,
        maxAsync = ActorHost.EPISODE_EXECUTOR_MAX_ASYNC)
@WebListener
public class EpisodeExecutorDefinition implements ServletContextListener {
}
