import streamlit as st

st.title("evaluation")
