package io.cyclium.workflow;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Declares a workflow in code, on a CDI bean class (give it a bean-defining annotation such as
 * {@code @ApplicationScoped}, as for {@code @Actor}). {@link WorkflowDiscovery} finds it while the
 * application deploys and fails the deployment, naming the workflow and the field, when a step is
 * unknown, an id is repeated, an actor or expectation is not deployed or the steps form a cycle.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
public @interface Workflow {

    String id();

    /** Payload field (dotted path) naming the subject: one instance in flight per subject. Empty = one per workflow. */
    String subjectKey() default "";

    /** Event types that start an instance (their payload becomes the instance's payload). */
    String[] events() default {};

    /** Payload conditions for those events, as in {@code @OnEvent(filter=...)}. */
    String[] eventFilter() default {};

    /** ISO-8601 interval that starts an instance (PT1H); empty = none. */
    String every() default "";

    WorkflowStep[] steps();
}
