package io.cyclium.audit;

/** How an audited action ended. */
public enum Outcome {
    /** it happened: the row was written in the transaction of the change */
    OK("ok"),
    /** the rules said no (a role, a state, a bad value): nothing changed; the reason says why */
    REFUSED("refused"),
    /** an error stopped it: the reason names the server log id; its change did not commit */
    FAILED("failed");

    private final String wire;

    Outcome(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }

    public static java.util.Optional<Outcome> parse(String wire) {
        return java.util.Arrays.stream(values()).filter(o -> o.wire.equals(wire)).findFirst();
    }
}
