package io.cyclium.actor;

/** A declaration that cannot run; the message names the actor class, actor and expectation. */
public class InvalidActorException extends RuntimeException {
    public InvalidActorException(String message) {
        super(message);
    }
}
