//! Two futures at once on one thread (the browser has no other), without an executor.

use std::future::Future;
use std::pin::pin;
use std::task::Poll;

/// Runs `first` and `second` together. When `first` finishes with an output `stop`
/// accepts, returns at once and drops `second` (a transport aborts its request on drop or
/// fails it on the next send); otherwise waits for both.
pub async fn join_unless<A, B>(
    first: A,
    second: B,
    stop: impl Fn(&A::Output) -> bool,
) -> (A::Output, Option<B::Output>)
where
    A: Future,
    B: Future,
{
    let mut first = pin!(first);
    let mut second = pin!(second);
    let mut a = None;
    let mut b = None;
    std::future::poll_fn(move |cx| {
        if a.is_none() {
            if let Poll::Ready(out) = first.as_mut().poll(cx) {
                if stop(&out) {
                    return Poll::Ready((out, None));
                }
                a = Some(out);
            }
        }
        if b.is_none() {
            if let Poll::Ready(out) = second.as_mut().poll(cx) {
                b = Some(out);
            }
        }
        if a.is_some() && b.is_some() {
            match (a.take(), b.take()) {
                (Some(x), y) => return Poll::Ready((x, y)),
                (None, y) => b = y,
            }
        }
        Poll::Pending
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stopping_first_result_does_not_wait_for_the_second() {
        let never = std::future::pending::<u8>();
        let (a, b) = pollster::block_on(join_unless(async { 1 }, never, |x| *x == 1));
        assert_eq!((a, b), (1, None));
        let (a, b) = pollster::block_on(join_unless(async { 2 }, async { 3 }, |x| *x == 1));
        assert_eq!((a, b), (2, Some(3)));
    }
}
