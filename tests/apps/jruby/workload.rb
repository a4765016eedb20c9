# The JRuby app test's workload: Ruby code on JRuby (deep invokedynamic stacks). Runs for ARGV[0] seconds,
# announcing "ready" after the first second.
def fib(n)
  n < 2 ? n : fib(n - 1) + fib(n - 2)
end

seconds = (ARGV[0] || 10).to_f
words = (1..5000).map { |i| (i * 2654435761 % 4294967296).to_s(36) }
start = Time.now
announced = false
rounds = 0
while Time.now - start < seconds
  words.group_by(&:size).transform_values { |group| group.sort.take(3) }
  fib(18)
  rounds += 1
  if !announced && Time.now - start > 1
    puts "ready"
    $stdout.flush
    announced = true
  end
end
puts "rounds #{rounds}"
