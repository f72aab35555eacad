package io.cyclium.operations;

import io.cyclium.problem.Problem;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.regex.Pattern;

/**
 * Where the next page of a newest-first episode list starts: the (started_at, id) of the last row
 * shown. The list's order is (started_at DESC, id DESC) and id is unique, so this pair names one
 * position exactly even when many episodes share a started_at; rows inserted meanwhile never shift
 * a page the way an offset does. On the wire it is opaque (base64url of "time|id").
 */
public record EpisodeCursor(LocalDateTime startedAt, String id) {

    private static final Pattern ID = Pattern.compile("[0-9a-fA-F-]{36}");

    public static EpisodeCursor after(EpisodeView last) {
        return new EpisodeCursor(last.startedAt(), last.id());
    }

    public String encode() {
        return Base64.getUrlEncoder().withoutPadding().encodeToString((startedAt + "|" + id).getBytes(StandardCharsets.UTF_8));
    }

    /** Decodes a cursor from {@link #encode()}; blank: null (the first page). */
    public static EpisodeCursor decode(String raw) {
        if (raw == null || raw.isBlank()) {
            return null;
        }
        try {
            String text = new String(Base64.getUrlDecoder().decode(raw.trim()), StandardCharsets.UTF_8);
            int bar = text.indexOf('|');
            String id = text.substring(bar + 1);
            if (bar < 0 || !ID.matcher(id).matches()) {
                throw new IllegalArgumentException(text);
            }
            return new EpisodeCursor(LocalDateTime.parse(text.substring(0, bar)), id);
        } catch (IllegalArgumentException | DateTimeParseException e) {
            throw Problem.invalid("cursor", "cursor \"" + EpisodeFilter.shorten(raw) + "\" is not one this API handed out");
        }
    }
}
