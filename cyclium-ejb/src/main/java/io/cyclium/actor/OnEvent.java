package io.cyclium.actor;

import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** An event trigger: events of {@link #type()} whose payload matches every {@link #filter()} entry. */
@Retention(RetentionPolicy.RUNTIME)
@Target({})
public @interface OnEvent {

    String type();

    /** Payload conditions, e.g. {@code "kind=cpu"}, {@code "kind in (cpu, memory)"}, {@code "resource.limit=10"}. */
    String[] filter() default {};
}
