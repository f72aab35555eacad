package io.cyclium.actor;

import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.AfterBeanDiscovery;
import jakarta.enterprise.inject.spi.AfterDeploymentValidation;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.ProcessAnnotatedType;
import jakarta.enterprise.inject.spi.WithAnnotations;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.logging.Logger;

/**
 * Finds every {@link Actor} bean in the deployment — in this module, the web module, or any other
 * module or library of the same EAR that is a bean archive — and validates the declarations while
 * the application deploys. Any problem becomes a definition error: the deployment fails with a
 * message naming the actor and expectation, instead of an episode failing at 3 a.m.
 */
public class ActorDiscovery implements Extension {

    private static final Logger LOG = Logger.getLogger(ActorDiscovery.class.getName());

    private final Set<Class<?>> found = new CopyOnWriteArraySet<>();
    private volatile List<ActorDefinition> definitions = List.of();

    <T> void collect(@Observes @WithAnnotations(Actor.class) ProcessAnnotatedType<T> type) {
        if (type.getAnnotatedType().isAnnotationPresent(Actor.class)) {
            found.add(type.getAnnotatedType().getJavaClass());
        }
    }

    void validate(@Observes AfterBeanDiscovery abd) {
        List<String> problems = new ArrayList<>();
        List<Class<?>> ordered = new ArrayList<>(found);
        ordered.sort((a, b) -> a.getName().compareTo(b.getName()));
        List<ActorDefinition> defs = ActorDeclarations.readAll(ordered, problems);
        for (String problem : problems) {
            abd.addDefinitionError(new InvalidActorException("Invalid Cyclium actor declaration: " + problem));
        }
        definitions = List.copyOf(defs);
    }

    void report(@Observes AfterDeploymentValidation adv) {
        LOG.info(() -> "Cyclium found " + definitions.size() + " actor(s): "
                + definitions.stream().map(ActorDefinition::id).toList());
    }

    public List<ActorDefinition> definitions() {
        return definitions;
    }
}
