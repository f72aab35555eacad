package io.cyclium.keys;

import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/**
 * One fixed text form for a JSON value, so that equal values hash equally on every node.
 *
 * <p>The canonical form has no insignificant whitespace, object members sorted by the Unicode
 * code points of their names, and each number written from its value alone: {@code 1},
 * {@code 1.0}, {@code 1e0} and {@code 10E-1} are all written {@code 1}. Strings are escaped as
 * RFC 8259 requires ({@code "}, {@code \} and control characters); other characters are written
 * as they are and encoded as UTF-8, except unpaired surrogates, which are written as
 * {@code \}{@code uXXXX} so that no two strings share a form.
 */
public final class CanonicalJson {

    /**
     * Numbers whose plain form would need more than this many zeros after the digits or after the
     * decimal point are written as {@code <digits>E<exponent>} instead, so that a tiny input like
     * {@code 1e999999999} cannot expand into a gigabyte of text.
     */
    private static final int MAX_PLAIN_SCALE = 1000;

    private static final Comparator<String> BY_CODE_POINT = CanonicalJson::compareCodePoints;

    private CanonicalJson() {
    }

    /** The canonical text of {@code value}; Java {@code null} is treated as JSON {@code null}. */
    public static String canonical(JsonValue value) {
        StringBuilder out = new StringBuilder();
        write(value == null ? JsonValue.NULL : value, out);
        return out.toString();
    }

    /** Lowercase hex SHA-256 of the UTF-8 bytes of {@link #canonical(JsonValue)}. */
    public static String hash(JsonValue value) {
        return sha256Hex(canonical(value));
    }

    /** Lowercase hex SHA-256 of the UTF-8 bytes of {@code text}. */
    public static String sha256Hex(String text) {
        Objects.requireNonNull(text, "text");
        // one digest per thread: getInstance searches the security providers on every call
        return HexFormat.of().formatHex(SHA_256.get().digest(text.getBytes(StandardCharsets.UTF_8)));
    }

    private static final ThreadLocal<MessageDigest> SHA_256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform must provide SHA-256", e);
        }
    });

    private static void write(JsonValue value, StringBuilder out) {
        switch (value.getValueType()) {
            case OBJECT -> writeObject((JsonObject) value, out);
            case ARRAY -> writeArray((JsonArray) value, out);
            case STRING -> writeString(((JsonString) value).getString(), out);
            case NUMBER -> out.append(number(((JsonNumber) value).bigDecimalValue()));
            case TRUE -> out.append("true");
            case FALSE -> out.append("false");
            case NULL -> out.append("null");
            default -> throw new IllegalArgumentException("unknown JSON value type " + value.getValueType());
        }
    }

    private static void writeObject(JsonObject object, StringBuilder out) {
        List<String> names = new ArrayList<>(object.keySet());
        names.sort(BY_CODE_POINT);
        out.append('{');
        for (int i = 0; i < names.size(); i++) {
            if (i > 0) {
                out.append(',');
            }
            writeString(names.get(i), out);
            out.append(':');
            write(object.get(names.get(i)), out);
        }
        out.append('}');
    }

    private static void writeArray(JsonArray array, StringBuilder out) {
        out.append('[');
        for (int i = 0; i < array.size(); i++) {
            if (i > 0) {
                out.append(',');
            }
            write(array.get(i), out);
        }
        out.append(']');
    }

    /** The canonical text of a number: the same for every spelling of the same value. */
    static String number(BigDecimal value) {
        BigDecimal stripped = value.stripTrailingZeros();
        if (Math.abs((long) stripped.scale()) <= MAX_PLAIN_SCALE) {
            return stripped.toPlainString();
        }
        return stripped.unscaledValue() + "E" + (-(long) stripped.scale());
    }

    private static void writeString(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20 || isUnpairedSurrogate(s, i)) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    private static boolean isUnpairedSurrogate(String s, int i) {
        char c = s.charAt(i);
        if (Character.isHighSurrogate(c)) {
            return i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1));
        }
        if (Character.isLowSurrogate(c)) {
            return i == 0 || !Character.isHighSurrogate(s.charAt(i - 1));
        }
        return false;
    }

    private static int compareCodePoints(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i);
            int cb = b.codePointAt(j);
            if (ca != cb) {
                return Integer.compare(ca, cb);
            }
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Integer.compare(a.length() - i, b.length() - j);
    }
}
