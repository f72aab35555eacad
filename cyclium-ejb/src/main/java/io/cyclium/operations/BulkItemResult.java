package io.cyclium.operations;

/**
 * The stored result of one target of a bulk action. {@code pending} and {@code working} are states
 * on the way (working: taken by the node holding the action's fence); the other three are final.
 */
public enum BulkItemResult {
    PENDING("pending"), WORKING("working"), DONE("done"), SKIPPED("skipped"), FAILED("failed");

    private final String wire;

    BulkItemResult(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }

    public static java.util.Optional<BulkItemResult> parse(String raw) {
        return java.util.Arrays.stream(values()).filter(r -> r.wire.equals(raw)).findFirst();
    }
}
