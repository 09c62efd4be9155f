//! Several futures at once on one thread (the browser has no other), without an executor.

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

/// Runs every future together until all are done; outputs in the futures' order.
pub async fn join_all<F: Future>(futures: Vec<F>) -> Vec<F::Output> {
    let mut pending: Vec<std::pin::Pin<Box<F>>> = futures.into_iter().map(Box::pin).collect();
    let mut done: Vec<Option<F::Output>> = pending.iter().map(|_| None).collect();
    std::future::poll_fn(move |cx| {
        for (future, out) in pending.iter_mut().zip(done.iter_mut()) {
            if out.is_none() {
                if let Poll::Ready(v) = future.as_mut().poll(cx) {
                    *out = Some(v);
                }
            }
        }
        if done.iter().all(Option::is_some) {
            Poll::Ready(done.iter_mut().filter_map(Option::take).collect())
        } else {
            Poll::Pending
        }
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

    #[test]
    fn all_finish_in_their_own_order() {
        let out = pollster::block_on(join_all(vec![
            Box::pin(async { 1 }) as std::pin::Pin<Box<dyn Future<Output = i32>>>,
            Box::pin(async {
                std::future::ready(()).await;
                2
            }),
        ]));
        assert_eq!(out, vec![1, 2]);
    }
}
