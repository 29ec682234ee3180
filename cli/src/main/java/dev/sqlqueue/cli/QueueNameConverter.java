package dev.sqlqueue.cli;

import dev.sqlqueue.InvalidInputException;
import dev.sqlqueue.QueueName;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Validates a queue name with {@link QueueName#of(String)}; the error names the rule broken. */
public final class QueueNameConverter implements ITypeConverter<QueueName> {
    @Override
    public QueueName convert(String value) {
        try {
            return QueueName.of(value);
        } catch (InvalidInputException e) {
            throw new TypeConversionException(e.getMessage());
        }
    }
}
