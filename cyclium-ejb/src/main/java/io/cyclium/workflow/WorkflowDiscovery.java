package io.cyclium.workflow;

import io.cyclium.actor.ActorDiscovery;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.AfterDeploymentValidation;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.ProcessAnnotatedType;
import jakarta.enterprise.inject.spi.WithAnnotations;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.logging.Logger;

/**
 * Finds every {@link Workflow} bean of the deployment and checks it against the deployed actors
 * once they are known: any issue is a deployment problem naming the workflow and the field, so a
 * broken DAG never reaches a running node.
 */
public class WorkflowDiscovery implements Extension {

    private static final Logger LOG = Logger.getLogger(WorkflowDiscovery.class.getName());

    private final Set<Class<?>> found = new CopyOnWriteArraySet<>();
    private volatile List<WorkflowDefinition> definitions = List.of();
    private final java.util.Map<String, Class<?>> declaredBy = new java.util.concurrent.ConcurrentHashMap<>();

    <T> void collect(@Observes @WithAnnotations(Workflow.class) ProcessAnnotatedType<T> type) {
        if (type.getAnnotatedType().isAnnotationPresent(Workflow.class)) {
            found.add(type.getAnnotatedType().getJavaClass());
        }
    }

    void validate(@Observes AfterDeploymentValidation adv, BeanManager beans) {
        ActorDiscovery actors = beans.getExtension(ActorDiscovery.class);
        List<Class<?>> ordered = new ArrayList<>(found);
        ordered.sort((a, b) -> a.getName().compareTo(b.getName()));
        List<String> problems = new ArrayList<>();
        List<WorkflowDefinition> defs = check(ordered, actors.definitions(), problems);
        for (Class<?> type : ordered) {
            declaredBy.put(type.getAnnotation(Workflow.class).id(), type);
        }
        problems.forEach(p -> adv.addDeploymentProblem(new IllegalStateException("Invalid Cyclium workflow: " + p)));
        definitions = List.copyOf(defs);
        LOG.info(() -> "Cyclium found " + definitions.size() + " workflow(s): "
                + definitions.stream().map(WorkflowDefinition::id).toList());
    }

    /** Reads and checks the declarations; what is wrong goes to {@code problems} as "workflow x (class): field: message". */
    static List<WorkflowDefinition> check(List<Class<?>> types, java.util.Collection<io.cyclium.actor.ActorDefinition> actors,
            List<String> problems) {
        List<WorkflowDefinition> defs = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        for (Class<?> type : types) {
            WorkflowDefinition def = WorkflowDeclarations.read(type);
            List<WorkflowValidation.Issue> issues = WorkflowValidation.check(def, actors);
            issues.forEach(i -> problems.add("workflow " + def.id() + " (" + type.getName() + "): " + i));
            if (!ids.add(def.id())) {
                problems.add("workflow " + def.id() + " (" + type.getName() + "): id: declared twice");
            }
            if (issues.isEmpty()) {
                defs.add(def);
            }
        }
        return defs;
    }

    public List<WorkflowDefinition> definitions() {
        return definitions;
    }

    /** The class that declares a workflow (to tell demo workflows apart). */
    public Class<?> declaringClass(String workflowId) {
        return declaredBy.get(workflowId);
    }
}
